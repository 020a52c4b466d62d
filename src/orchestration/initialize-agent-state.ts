import { z } from 'zod';

import type { AgentConfig, AgentInput } from '../agent/index.js';
import { InvalidArgumentError } from '../errors/index.js';
import type { UserMessage } from '../types/message.js';
import { messageId } from './ids.js';
import { formatSchemaIssues } from './schema-issues.js';

/**
 * Options of `initializeAgentState`.
 *
 * @example
 * const options: InitializeAgentStateOptions<{ count: number }> = { runId: 'run-1', existingState: { count: 2 } };
 */
export interface InitializeAgentStateOptions<TState> {
  /** The message id becomes `messageId(runId, 0, 0)`. */
  runId?: string;
  /** Explicit message id (wins over runId). */
  messageId?: string;
  /** The session's current custom state (continuations); `input.state` is merged over it. */
  existingState?: TState;
}

/**
 * The starting point of a run: custom state and the user message to append.
 *
 * @example
 * const { customState, message }: InitializedAgentState<{ count: number }> = initializeAgentState(agent, 'hi');
 */
export interface InitializedAgentState<TState> {
  customState: TState;
  message: UserMessage;
}

/**
 * Turn `execute` input into the initial custom state and user message. With a `stateSchema`, the state
 * (existing state, then `input.state` merged over it) is parsed so its defaults apply; without one the
 * merged object is used as is.
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT` when the input is not a string or `{ message, state? }`, or
 *   the state does not match the stateSchema (the message lists field paths, never values).
 * @example
 * const { customState, message } = initializeAgentState(agent, { message: 'Plan my trip', state: { city: 'Oslo' } }, { runId });
 */
export function initializeAgentState<TStateSchema extends z.ZodType, TOutputSchema extends z.ZodType>(
  agent: AgentConfig<TStateSchema, TOutputSchema>,
  input: AgentInput<z.output<TStateSchema>>,
  options: InitializeAgentStateOptions<z.output<TStateSchema>> = {},
): InitializedAgentState<z.output<TStateSchema>> {
  const { text, state } = readInput(input);
  const existing: unknown = options.existingState ?? {};
  if (typeof existing !== 'object' || existing === null || Array.isArray(existing)) {
    throw new InvalidArgumentError('existingState must be an object.');
  }
  const merged: Record<string, unknown> = { ...existing, ...state };
  let customState: unknown = merged;
  if (agent.stateSchema !== undefined) {
    const parsed = z.safeParse(agent.stateSchema, merged);
    if (!parsed.success) {
      throw new InvalidArgumentError(
        `The initial state does not match the stateSchema of agent "${agent.name}": ${formatSchemaIssues(parsed.error.issues)}.`,
        { agentType: agent.name },
      );
    }
    customState = parsed.data;
  }
  const id = options.messageId ?? (options.runId === undefined ? undefined : messageId(options.runId, 0, 0));
  const message: UserMessage = { role: 'user', content: text, ...(id === undefined ? {} : { id }) };
  return { customState: customState as z.output<TStateSchema>, message };
}

function readInput(input: unknown): { text: string; state: Record<string, unknown> | undefined } {
  if (typeof input === 'string') return { text: input, state: undefined };
  if (typeof input !== 'object' || input === null) {
    throw new InvalidArgumentError('Agent input must be a string or { message: string, state?: object }.');
  }
  const { message, state } = input as { message?: unknown; state?: unknown };
  if (typeof message !== 'string') throw new InvalidArgumentError('input.message must be a string.');
  if (state !== undefined && (typeof state !== 'object' || state === null || Array.isArray(state))) {
    throw new InvalidArgumentError('input.state must be an object when given.');
  }
  return { text: message, state: state as Record<string, unknown> | undefined };
}

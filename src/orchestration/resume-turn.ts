import type { SuspensionRecord } from './hitl-types.js';
import type { AgentWorkflowInput } from './workflow-input.js';
import type { UserMessage } from '../types/message.js';

/** The turn-specific part of a workflow input. */
export type TurnInput = Pick<AgentWorkflowInput, 'userMessage' | 'initialState' | 'resume'>;

/** How a resume continues (the `ResumeOptions` fields this decision reads). */
export interface ResumeTurnOptions {
  mode?: 'continue' | 'with_message' | 'with_confirmation' | 'from_checkpoint';
  message?: string;
}

/**
 * The turn input of a resumed run: a parked step to settle, a rewind, or a message to append first.
 *
 * @example
 * const turn = resumeTurnInput(state.pendingClientToolCalls ?? {}, run, runId, { mode: 'continue' });
 */
export function resumeTurnInput(
  pending: Record<string, { submittedAt?: number }>,
  run: { runId: string; metadata?: Record<string, unknown> } | null,
  runId: string,
  options: ResumeTurnOptions,
): TurnInput {
  const suspension = (run?.metadata as { suspension?: SuspensionRecord } | undefined)?.suspension;
  const mode = options.mode ?? 'continue';
  // Rewinding drops the parked step (and its pending calls) with everything after the checkpoint. A step that
  // waits for children is open until it settles.
  const open =
    mode !== 'from_checkpoint' &&
    suspension !== undefined &&
    (suspension.hitlCalls.some(({ call }) => pending[call.toolCallId] !== undefined) ||
      (suspension.childCalls?.length ?? 0) > 0 ||
      (suspension.companionCalls?.length ?? 0) > 0);
  const text = mode === 'with_message' ? options.message : mode === 'with_confirmation' ? (options.message ?? 'Confirmed.') : undefined;
  const userMessage: UserMessage | undefined = text === undefined ? undefined : { id: `${runId}:0:0`, role: 'user', content: text };
  return {
    ...(userMessage === undefined ? {} : { userMessage }),
    ...(run === null ? {} : { resume: { previousRunId: run.runId, ...(open && suspension !== undefined ? { suspension } : {}) } }),
  };
}

/**
 * What a drill compares between a crashed-and-recovered session and its uncrashed baseline: the stored
 * conversation, custom state, usage rows and run result, with the run-specific ids (session id, run id)
 * normalized away so the two can be compared exactly.
 */
import type { AgentResult } from '../../../src/types/result.js';
import type { StoredMessage } from '../../../src/types/message.js';
import type { DrillEnvironment } from './drill-environment.js';
import { usageRowsOf } from './durable-probes.js';

/**
 * A session's durable outcome, normalized.
 *
 * @example
 * expect(await snapshotSession(env, 'drill', drillResult)).toEqual(await snapshotSession(env, 'baseline', baselineResult));
 */
export interface SessionSnapshot {
  /** Stored messages without `createdAt`, ids and contents with `<run>` / `<session>` placeholders. */
  messages: unknown[];
  /** The custom state's facts, sorted (parallel tools commit in any order). */
  facts: string[];
  /** `kind:name:step` of every usage row, sorted. */
  usageRows: string[];
  /** The result without ids and durations. */
  result: unknown;
}

/**
 * One line per stored message: `user`, `assistant[call ids]`, `tool(call id)`.
 *
 * @example
 * describeConversation(messages); // ['user', 'assistant[call_1_lookup_a]', 'tool(call_1_lookup_a)', 'assistant']
 */
export function describeConversation(messages: readonly StoredMessage[]): string[] {
  return messages.map((message) => {
    if (message.role === 'assistant') return message.toolCalls === undefined ? 'assistant' : `assistant[${message.toolCalls.map((call) => call.id).join(',')}]`;
    if (message.role === 'tool') return `tool(${message.toolCallId})`;
    return message.role;
  });
}

/**
 * Normalized durable outcome of `sessionId`, whose run produced `result`.
 *
 * @example
 * const snapshot = await snapshotSession(env, 'tool-drill', result);
 */
export async function snapshotSession(env: DrillEnvironment, sessionId: string, result: AgentResult): Promise<SessionSnapshot> {
  const { messages } = await env.stateStore.getMessages(sessionId);
  const state = await env.stateStore.loadState<{ facts?: string[] }>(sessionId);
  const usageRows = await usageRowsOf(env.pool, sessionId);
  const placeholders = (value: unknown): unknown => replaceIds(value, result.runId, sessionId);
  return {
    messages: messages.map((message) => {
      const { createdAt: _createdAt, ...rest } = message;
      return placeholders(rest);
    }),
    facts: [...(state?.customState.facts ?? [])].sort(),
    usageRows: usageRows.sort(),
    result: placeholders({
      status: result.status,
      completionReason: result.completionReason,
      stepCount: result.stepCount,
      output: result.output,
      error: result.error,
      usage: result.usage === undefined ? undefined : { ...result.usage, toolDurationMs: 'measured' },
    }),
  };
}

/**
 * The stored messages of a session (convenience for assertions).
 *
 * @example
 * expect(describeConversation(await storedMessages(env, 's1'))).toEqual(['user', 'assistant']);
 */
export async function storedMessages(env: DrillEnvironment, sessionId: string): Promise<StoredMessage[]> {
  return (await env.stateStore.getMessages(sessionId)).messages;
}

function replaceIds(value: unknown, runId: string, sessionId: string): unknown {
  const text = JSON.stringify(value ?? null)
    .split(runId)
    .join('<run>')
    .split(sessionId)
    .join('<session>');
  return JSON.parse(text) as unknown;
}

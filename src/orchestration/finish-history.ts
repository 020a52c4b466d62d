import { FINISH_TOOL_NAME } from '../agent/index.js';
import type { Message, ToolResultMessage } from '../types/message.js';

/** Content of the synthetic `__finish__` result. */
const FINISH_RESULT_CONTENT = 'Output accepted; the task is complete.';

/**
 * Options of `synthesizeFinishToolResult`.
 *
 * @example
 * const options: SynthesizeFinishOptions = { id: messageId(runId, step, 1) };
 */
export interface SynthesizeFinishOptions {
  /** Message id. Default `${toolCallId}:finish-result` (deterministic, so a repeated heal is a no-op). */
  id?: string;
  createdAt?: number;
}

/**
 * The synthetic tool result that pairs a `__finish__` call, so a transcript ending in `__finish__` stays a
 * valid conversation when a continuation turn appends to it (the `__finish__` history invariant).
 *
 * @example
 * const healed = [...history, synthesizeFinishToolResult(findUnpairedFinishCallId(history)!)];
 */
export function synthesizeFinishToolResult(toolCallId: string, options: SynthesizeFinishOptions = {}): ToolResultMessage {
  return {
    id: options.id ?? `${toolCallId}:finish-result`,
    role: 'tool',
    toolCallId,
    toolName: FINISH_TOOL_NAME,
    content: FINISH_RESULT_CONTENT,
    ...(options.createdAt === undefined ? {} : { createdAt: options.createdAt }),
  };
}

/**
 * The id of a `__finish__` call in the last assistant message that has no tool result after it, if any.
 * Run it before appending to a completed session; heal with `synthesizeFinishToolResult`.
 *
 * @example
 * const dangling = findUnpairedFinishCallId(history);
 * if (dangling !== undefined) await store.appendMessages(sessionId, [synthesizeFinishToolResult(dangling)]);
 */
export function findUnpairedFinishCallId(messages: readonly Message[]): string | undefined {
  let lastAssistant = -1;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    if (messages[index]?.role === 'assistant') {
      lastAssistant = index;
      break;
    }
  }
  const assistant = messages[lastAssistant];
  if (assistant?.role !== 'assistant') return undefined;
  const answered = new Set(
    messages.slice(lastAssistant + 1).flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : [])),
  );
  return assistant.toolCalls?.find((call) => call.name === FINISH_TOOL_NAME && !answered.has(call.id))?.id;
}

import type { StepResult } from '../types/llm.js';
import type { AssistantMessage, ToolResultMessage } from '../types/message.js';

/**
 * Options of `createAssistantMessage`.
 *
 * @example
 * const options: AssistantMessageOptions = { id: messageId(runId, step, 0) };
 */
export interface AssistantMessageOptions {
  id: string;
  createdAt?: number;
}

/**
 * The assistant message for an LLM step: its text, reasoning (when any) and every tool call it requested.
 *
 * @example
 * const message = createAssistantMessage(stepResult, { id: messageId(runId, step, 0) });
 */
export function createAssistantMessage(
  stepResult: Pick<StepResult, 'text' | 'thinking' | 'toolCalls'>,
  options: AssistantMessageOptions,
): AssistantMessage {
  return {
    id: options.id,
    role: 'assistant',
    content: stepResult.text,
    ...(stepResult.thinking === undefined || stepResult.thinking === '' ? {} : { thinking: stepResult.thinking }),
    ...(stepResult.toolCalls.length === 0
      ? {}
      : { toolCalls: stepResult.toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments })) }),
    ...(options.createdAt === undefined ? {} : { createdAt: options.createdAt }),
  };
}

/**
 * Input of `createToolResultMessage`: a successful `result` or an `error` text fed back to the model.
 *
 * @example
 * const input: ToolResultInput = { id, toolCallId: 'call_1', toolName: 'search', result: { hits: 3 } };
 */
export type ToolResultInput = { id: string; toolCallId: string; toolName: string; createdAt?: number } & (
  | { result: unknown; error?: undefined }
  | { error: string; result?: undefined }
);

/**
 * The tool-result message pairing a tool call; an `error` becomes `content` with `isError: true`.
 *
 * @example
 * createToolResultMessage({ id: messageId(runId, step, 1), toolCallId: 'call_1', toolName: 'search', error: 'Timed out' });
 */
export function createToolResultMessage(input: ToolResultInput): ToolResultMessage {
  const base = {
    id: input.id,
    role: 'tool' as const,
    toolCallId: input.toolCallId,
    toolName: input.toolName,
    ...(input.createdAt === undefined ? {} : { createdAt: input.createdAt }),
  };
  return input.error === undefined ? { ...base, content: input.result } : { ...base, content: input.error, isError: true };
}

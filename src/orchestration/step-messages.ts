import type { PlannedToolCall } from './step-plan-types.js';
import type { ToolOutcome } from './tool-outcome.js';
import type { HitlResolution } from './hitl-types.js';
import type { Message, ToolResultMessage } from '../types/message.js';

/** A tool result message placed by the index of its call in the assistant message. */
export interface IndexedMessage {
  index: number;
  message: Message;
}

/** The result message of a server tool outcome. */
export function outcomeMessage(outcome: ToolOutcome): IndexedMessage {
  return {
    index: outcome.index,
    message: resultMessage(outcome, outcome.success ? { result: outcome.result } : { error: outcome.error ?? 'error' }),
  };
}

/** The result message of a human-answered call that did not run a tool (client result, denial, timeout). */
export function resolutionMessage(resolution: HitlResolution): IndexedMessage {
  const { call } = resolution.call;
  return {
    index: call.index,
    message: resultMessage(call, resolution.outcome === 'result' ? { result: resolution.result } : { error: resolution.error ?? 'error' }),
  };
}

/** An error result for a call (rejected or unsupported). */
export function errorMessage(call: PlannedToolCall, error: string): IndexedMessage {
  return { index: call.index, message: resultMessage(call, { error }) };
}

/** A successful result for a call that did not run as a server tool (a sub-agent's output). */
export function resultFor(call: PlannedToolCall, result: unknown): IndexedMessage {
  return { index: call.index, message: resultMessage(call, { result }) };
}

/** Messages in conversation order: the given head (assistant message), results by call index, then a tail. */
export function orderMessages(head: readonly Message[], results: readonly IndexedMessage[], tail: readonly Message[] = []): Message[] {
  const sorted = [...results].sort((left, right) => left.index - right.index);
  return [...head, ...sorted.map((entry) => entry.message), ...tail];
}

function resultMessage(
  call: Pick<PlannedToolCall, 'toolCallId' | 'toolName' | 'resultMessageId'>,
  outcome: { result: unknown } | { error: string },
): ToolResultMessage {
  return {
    id: call.resultMessageId,
    role: 'tool',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    ...('result' in outcome ? { content: outcome.result } : { content: outcome.error, isError: true }),
  };
}

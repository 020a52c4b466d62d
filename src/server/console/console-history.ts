import type { StoredMessage, ToolCall, ToolResultMessage } from '../../types/message.js';
import type { ConsoleStepView, ConsoleToolCallView } from './console-api.js';
import { consoleValue } from './console-values.js';

/** Runtime message ids: `${runId}:${step}:${index}`. */
const MESSAGE_ID = /^(.+):(\d+):(\d+)$/;

/** A step being collected: raw texts until the step is complete. */
interface StepDraft {
  key: string;
  runId: string | null;
  step: number | null;
  createdAt?: number;
  userTexts: string[];
  texts: string[];
  thinking: string[];
  toolCalls: ConsoleToolCallView[];
  firstSequence: number;
  lastSequence: number;
}

/**
 * Group a page of messages by agent step (by message id), each tool call with its result (matched by call id anywhere
 * on the page; a result whose call is not on the page is shown alone). Every value is bounded (`consoleValue`).
 *
 * @example
 * const steps = historySteps(messages, new Set(['run-1:1']), new Set(['call-2']));
 */
export function historySteps(messages: readonly StoredMessage[], checkpointIds: ReadonlySet<string>, awaitingCallIds: ReadonlySet<string>): ConsoleStepView[] {
  const results = new Map<string, ToolResultMessage>();
  const called = new Set<string>();
  for (const message of messages) {
    if (message.role === 'tool') results.set(message.toolCallId, message);
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) called.add(call.id);
  }
  const drafts: StepDraft[] = [];
  for (const message of messages) {
    const draft = draftFor(drafts, message);
    if (message.role === 'user') draft.userTexts.push(message.content);
    if (message.role === 'assistant') addAssistant(draft, message.content, message.thinking, message.toolCalls ?? [], results, awaitingCallIds);
    if (message.role === 'tool' && !called.has(message.toolCallId)) {
      const { toolCallId, toolName } = message;
      draft.toolCalls.push({ toolCallId, toolName, result: consoleValue(message.content), status: resultStatus(message) });
    }
  }
  return drafts.map((draft) => stepView(draft, checkpointIds));
}

function draftFor(drafts: StepDraft[], message: StoredMessage): StepDraft {
  const parsed = MESSAGE_ID.exec(message.id);
  const runId = parsed?.[1] ?? null;
  const step = parsed === null ? null : Number(parsed[2]);
  const key = runId === null ? 'other' : `${runId}:${step}`;
  const last = drafts.at(-1);
  if (last !== undefined && last.key === key) {
    last.lastSequence = message.sequence;
    return last;
  }
  const sequences = { firstSequence: message.sequence, lastSequence: message.sequence };
  const draft: StepDraft = { key, runId, step, userTexts: [], texts: [], thinking: [], toolCalls: [], ...sequences };
  if (message.createdAt !== undefined) draft.createdAt = message.createdAt;
  drafts.push(draft);
  return draft;
}

function addAssistant(
  draft: StepDraft,
  content: string,
  thinking: string | undefined,
  toolCalls: readonly ToolCall[],
  results: ReadonlyMap<string, ToolResultMessage>,
  awaitingCallIds: ReadonlySet<string>,
): void {
  if (content.length > 0) draft.texts.push(content);
  if (thinking !== undefined && thinking.length > 0) draft.thinking.push(thinking);
  for (const call of toolCalls) {
    const result = results.get(call.id);
    const status = result !== undefined ? resultStatus(result) : awaitingCallIds.has(call.id) ? 'awaiting_human' : 'no_result';
    draft.toolCalls.push({
      toolCallId: call.id,
      toolName: call.name,
      arguments: consoleValue(call.arguments),
      ...(result === undefined ? {} : { result: consoleValue(result.content) }),
      status,
    });
  }
}

function resultStatus(result: ToolResultMessage): ConsoleToolCallView['status'] {
  return result.isError === true ? 'failed' : 'completed';
}

function stepView(draft: StepDraft, checkpointIds: ReadonlySet<string>): ConsoleStepView {
  const checkpointId = draft.runId === null ? undefined : `${draft.runId}:${draft.step}`;
  return {
    runId: draft.runId,
    step: draft.step,
    ...(draft.createdAt === undefined ? {} : { createdAt: draft.createdAt }),
    ...(draft.userTexts.length === 0 ? {} : { userText: consoleValue(draft.userTexts.join('\n')) }),
    ...(draft.texts.length === 0 ? {} : { text: consoleValue(draft.texts.join('\n')) }),
    ...(draft.thinking.length === 0 ? {} : { thinking: consoleValue(draft.thinking.join('\n')) }),
    toolCalls: draft.toolCalls,
    ...(checkpointId !== undefined && checkpointIds.has(checkpointId) ? { checkpointId } : {}),
    firstSequence: draft.firstSequence,
    lastSequence: draft.lastSequence,
  };
}

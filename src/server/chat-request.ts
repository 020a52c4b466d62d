import type { SubmitToolResult } from '../executor/submit-tool-result.js';
import type { SessionState } from '../types/session.js';
import type { KnownToolCalls } from './ui-message-chunks.js';
import { openCallsOf } from '../store/open-calls.js';
import type { ChatMessage } from './wire-schemas.js';

/** A tool part of a UI message, read leniently (static `tool-<name>` parts and `dynamic-tool` parts). */
interface ToolPartView {
  toolCallId: string;
  state?: string;
  output?: unknown;
  errorText?: string;
  approval?: { id?: unknown; approved?: unknown; reason?: unknown };
}

function toolParts(message: ChatMessage): ToolPartView[] {
  return message.parts
    .filter((part) => part.type.startsWith('tool-') || part.type === 'dynamic-tool')
    .map((part) => part as unknown as ToolPartView)
    .filter((part) => typeof part.toolCallId === 'string');
}

/** @internal The text a user message carries (its text parts, joined). */
export function userText(message: ChatMessage): string {
  return message.parts
    .map((part) => (part.type === 'text' && typeof (part as { text?: unknown }).text === 'string' ? (part as unknown as { text: string }).text : ''))
    .join('');
}

/**
 * @internal The submissions an assistant message answers: client tool outputs (`output-available` /
 * `output-error`) and approval decisions (`approval-responded`) for calls the session still waits for.
 * Parts for anything else (answered before, unknown ids) are ignored.
 */
export function answersOf(message: ChatMessage, state: SessionState): SubmitToolResult[] {
  const open = new Map(openCallsOf(state).map((entry) => [entry.toolCallId, entry]));
  const submissions: SubmitToolResult[] = [];
  for (const part of toolParts(message)) {
    const pending = open.get(part.toolCallId);
    if (pending === undefined) continue;
    const base = { sessionId: state.sessionId, toolCallId: part.toolCallId };
    if (pending.kind === 'client' && part.state === 'output-available') submissions.push({ kind: 'client-tool-result', ...base, result: part.output ?? null });
    if (pending.kind === 'client' && part.state === 'output-error') submissions.push({ kind: 'client-tool-result', ...base, error: String(part.errorText ?? 'Client tool failed') });
    if (pending.kind === 'approval' && part.state === 'approval-responded' && typeof part.approval?.approved === 'boolean') {
      submissions.push({
        kind: 'approval-response',
        ...base,
        approvalId: typeof part.approval.id === 'string' ? part.approval.id : (pending.approvalId ?? part.toolCallId),
        approved: part.approval.approved,
        ...(typeof part.approval.reason === 'string' ? { reason: part.approval.reason } : {}),
      });
    }
  }
  return submissions;
}

/** @internal The tool calls an assistant message already shows (so a continuation does not repeat them). */
export function knownToolCallsOf(message: ChatMessage): KnownToolCalls {
  return Object.fromEntries(toolParts(message).map((part) => [part.toolCallId, part.approval === undefined ? 'input' : 'approval'] as const));
}

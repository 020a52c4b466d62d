import type { PlannedSubAgentCall, PlannedToolCall } from './step-plan-types.js';
import type { ToolResultMessage, UserMessage } from '../types/message.js';
import type { PendingClientToolCall } from '../types/session.js';
import type { CompanionCallWait } from './companions.js';

/** A call that waits for a human: a client-executed tool, or a server tool behind an approval gate. */
export interface HitlCall {
  call: PlannedToolCall;
  kind: 'client' | 'approval';
  /** What an approval-response must echo back (the toolCallId unless the client is told otherwise). */
  approvalId: string;
  /** Client deadline, from the tool's `timeoutMs`. */
  timeoutMs?: number;
}

/** A submission as stored on the pending entry. */
export type Submission = NonNullable<PendingClientToolCall['submission']>;

/** What a parked run leaves for `resume()` (kept in the run record's metadata). */
export interface SuspensionRecord {
  step: number;
  stepId: string;
  hitlCalls: HitlCall[];
  /** finishWith calls of the suspended step: they run after the human answers. */
  finishWithCalls: PlannedToolCall[];
  /** A valid `__finish__` in the same batch: its output (the run completes once the humans answered). */
  finishCall?: { output: unknown; resultMessage: ToolResultMessage };
  /** Sub-agent calls whose children had not finished (parked for a human, or interrupted) when the step suspended. */
  childCalls?: PlannedSubAgentCall[];
  /** Blocking companion calls whose child's turn had parked for a human when the step suspended. */
  companionCalls?: CompanionCallWait[];
  /** Messages sent with a resume that did not settle the step: committed after the step's results, once it is. */
  tail?: UserMessage[];
}

/** One human-answered call, resolved to a tool result (or to "run the tool" for an approval). */
export interface HitlResolution {
  call: HitlCall;
  /** 'run': approved, execute the server tool; 'result'/'error': the call's final result. */
  outcome: 'run' | 'result' | 'error';
  result?: unknown;
  error?: string;
}

/** Text of a denied approval (the reference wording). */
export const APPROVAL_DENIED_MESSAGE = 'Tool call was not approved by the user';
/** The longest denial reason the model is shown (characters); a longer one is cut with an ellipsis. */
export const DENIAL_REASON_MAX_CHARS = 500;

/**
 * The tool error the model sees for a denied approval: the reference wording, then the human's reason (bounded to
 * {@link DENIAL_REASON_MAX_CHARS}) so the model can act on it.
 *
 * @example
 * approvalDeniedMessage('too much'); // 'Tool call was not approved by the user. Reason: too much'
 */
export function approvalDeniedMessage(reason?: string): string {
  const trimmed = reason?.trim() ?? '';
  if (trimmed === '') return APPROVAL_DENIED_MESSAGE;
  const bounded = trimmed.length > DENIAL_REASON_MAX_CHARS ? `${trimmed.slice(0, DENIAL_REASON_MAX_CHARS)}…` : trimmed;
  return `${APPROVAL_DENIED_MESSAGE}. Reason: ${bounded}`;
}
/** Text of an expired client-tool deadline. */
export const CLIENT_TOOL_TIMEOUT_MESSAGE = 'The client did not submit a result before the tool call deadline.';

import type { CompletionReason, RunStatus } from './session.js';
import type { UsageSummary } from './usage.js';

/**
 * One call a suspended run waits for: what a UI needs to render it and what `submitToolResult()` takes.
 *
 * @example
 * const call: SuspendedCall = { toolCallId: 'c1', toolName: 'transfer', kind: 'approval', approvalId: 'c1' };
 */
export interface SuspendedCall {
  toolCallId: string;
  toolName: string;
  kind: 'client' | 'approval';
  /** For `approval`: what the approval-response echoes back. */
  approvalId?: string;
}

/**
 * Routing info of a suspended run: what a client must submit before the run can continue.
 *
 * @example
 * if (result.suspended) console.log('waiting for', result.suspended.toolCallIds);
 */
export interface SuspensionInfo {
  reason: 'client_tool' | 'awaiting_children';
  toolCallIds: string[];
  /**
   * The run's own calls among `toolCallIds`, each with its kind — `client` (run the tool, submit its result) or
   * `approval` (approve or deny; an approval gate suspends with status `suspended_client_tool` too) — as the
   * `run_suspended` chunk lists them. Calls of sub-agents are in `toolCallIds` only.
   */
  calls?: SuspendedCall[];
  /** Step id (checkpoint id) the run suspended in. */
  stepId?: string;
}

/**
 * The outcome of one run.
 *
 * @example
 * const result = await handle.result();
 * if (result.status === 'completed') console.log(result.output);
 */
export interface AgentResult<TOutput = unknown> {
  sessionId: string;
  runId: string;
  status: Exclude<RunStatus, 'running'>;
  output?: TOutput;
  /** Payload-free error text when `status` is 'failed'. */
  error?: string;
  completionReason: CompletionReason;
  /** LLM steps taken by this run. */
  stepCount: number;
  suspended?: SuspensionInfo;
  /** Tokens and tool time of this run, when a usage store is configured. */
  usage?: UsageSummary;
}

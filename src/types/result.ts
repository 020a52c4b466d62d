import type { CompletionReason, RunStatus } from './session.js';
import type { UsageSummary } from './usage.js';

/**
 * Routing info of a suspended run: what a client must submit before the run can continue.
 *
 * @example
 * if (result.suspended) console.log('waiting for', result.suspended.toolCallIds);
 */
export interface SuspensionInfo {
  reason: 'client_tool' | 'awaiting_children';
  toolCallIds: string[];
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

import type { AgentResult } from '../types/result.js';
import type { RunStatus, SessionStatus } from '../types/session.js';

/**
 * What became of a sub-agent child, as the parent sees it: a result or an error for the model, or a child that
 * has not finished (waiting for a human, or interrupted) — then the parent's step suspends too.
 *
 * @example
 * const outcome = childOutcomeOf(await DBOS.getResult(childWorkflowId));
 */
export type ChildOutcome =
  | { kind: 'result'; output: unknown }
  | { kind: 'error'; error: string }
  | { kind: 'suspended'; toolCallIds: string[] }
  | { kind: 'interrupted' };

/** Error text of a child that was aborted (cascade: terminated, never re-spawned). */
export const CHILD_TERMINATED_MESSAGE = 'The sub-agent was terminated before it finished.';

/**
 * Map a child run's result to the parent's view of it.
 *
 * @example
 * childOutcomeOf({ status: 'failed', error: 'Max steps exceeded (3)', ... }); // { kind: 'error', error: 'Sub-agent failed: Max steps exceeded (3)' }
 */
export function childOutcomeOf(result: Pick<AgentResult, 'status' | 'output' | 'error' | 'suspended'>): ChildOutcome {
  switch (result.status) {
    case 'completed':
      return { kind: 'result', output: result.output ?? null };
    case 'suspended_client_tool':
      return { kind: 'suspended', toolCallIds: result.suspended?.toolCallIds ?? [] };
    case 'interrupted':
      return { kind: 'interrupted' };
    case 'aborted':
      return { kind: 'error', error: CHILD_TERMINATED_MESSAGE };
    default:
      return { kind: 'error', error: `Sub-agent failed: ${result.error ?? 'no error text'}` };
  }
}

/**
 * What a resumed parent does with a child it was waiting for (the reference's cascade table, plus the children
 * this runtime parks): drain a completed child's result; drain a genuine failure as a tool error; drain a
 * terminated child as a terminated result; re-spawn a child failed with `parent_suspended` (or gone); continue an
 * interrupted or parked child; wait for one still running.
 *
 * @example
 * decideChildCascade({ status: 'interrupted' }, { status: 'interrupted' }); // 'continue'
 */
export type ChildCascadeAction = 'drain_result' | 'drain_failure' | 'drain_terminated' | 'respawn' | 'continue' | 'wait';

/**
 * Decide the cascade action for one child from its session status, failure reason and current run status.
 *
 * @example
 * decideChildCascade({ status: 'failed', failureReason: 'parent_suspended' }, null); // 'respawn'
 */
export function decideChildCascade(
  child: { status: SessionStatus; failureReason?: string } | null,
  run: { status: RunStatus } | null,
): ChildCascadeAction {
  if (child === null) return 'respawn';
  switch (child.status) {
    case 'completed':
      return 'drain_result';
    case 'failed':
      if (child.failureReason === 'parent_suspended') return 'respawn';
      return child.failureReason === 'aborted' ? 'drain_terminated' : 'drain_failure';
    case 'interrupted':
    case 'paused':
      return 'continue';
    default:
      return run?.status === 'running' ? 'wait' : 'continue';
  }
}

/**
 * The sub-agent ref status of a child outcome.
 *
 * @example
 * refStatusOf({ kind: 'suspended', toolCallIds: ['c1'] }); // 'paused_awaiting_client'
 */
export function refStatusOf(outcome: ChildOutcome, terminated = false): 'completed' | 'failed' | 'interrupted' | 'terminated' | 'paused_awaiting_client' {
  if (terminated) return 'terminated';
  switch (outcome.kind) {
    case 'result':
      return 'completed';
    case 'error':
      return 'failed';
    case 'suspended':
      return 'paused_awaiting_client';
    default:
      return 'interrupted';
  }
}

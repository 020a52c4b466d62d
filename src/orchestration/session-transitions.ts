import type { RunStatus, SessionStatus } from '../types/session.js';

/**
 * An executor entry point that acts on a session.
 *
 * @example
 * const operation: SessionOperation = 'resume';
 */
export type SessionOperation = 'execute' | 'resume' | 'retry' | 'submit';

/**
 * What the session state machine reads: the session's status (`missing` when there is no session), its
 * current run's status (`none` without a run) and whether a parked step still waits to be taken by a resume
 * (`suspendedStepId` is set until a resume takes it).
 *
 * @example
 * const view: SessionView = { status: 'active', run: 'suspended_client_tool', parked: true };
 */
export interface SessionView {
  status: SessionStatus | 'missing';
  run: RunStatus | 'none';
  parked: boolean;
  /**
   * The session's interrupt flag is set while its run still runs: the interruption is landing (the run ends
   * `interrupted` at its next step boundary or wake-up). Read only where it changes a decision (resume of a running run).
   */
  interrupting?: boolean;
}

/** Why an operation is refused; the executor maps each to its typed error. */
export type RefusalReason =
  | 'not_found'
  | 'aborted'
  | 'awaiting_humans'
  | 'not_continuable'
  | 'not_resumable'
  | 'not_retryable';

/**
 * What an operation does on a session in a given state:
 * - `create`: execute on a new session id — create it (or branch it) and start its first run.
 * - `start_turn`: execute on a completed session — swap it to `active` (CAS) and start a new turn.
 * - `attach`: the session runs — return a handle to the current run (execute: only when the input repeats
 *   the running turn's own message; another message is refused with `AGENT_ALREADY_RUNNING`).
 * - `await_run`: the session was taken (by a concurrent call) but its run is not recorded yet, or its run
 *   ended without releasing it — repair a lost start first, else wait for the taker's run and attach to it.
 * - `await_interrupt`: resume — the running run was interrupted and has not stopped yet: wait for it to record
 *   its end, then decide again (a resume right after `interrupt()` starts a new run, never attaches to the old one).
 * - `take_and_start`: resume — take the session (CAS) and start a run continuing it.
 * - `restart`: retry — swap a failed session to `active` (CAS) and start a fresh run.
 * - `wake`: submit — record the answer and wake the warm run; it continues by itself.
 * - `record_for_resume`: submit — record the answer; the run had parked (or stopped), a `resume()` continues it.
 * - `record_only`: submit — nothing will consume the answer (the call is unknown or already settled).
 * - `refuse`: the operation may not act; `reason` says why.
 *
 * @example
 * const decision: SessionDecision = { action: 'refuse', reason: 'aborted' };
 */
export type SessionDecision =
  | { action: 'create' }
  | { action: 'start_turn' }
  | { action: 'attach' }
  | { action: 'await_run' }
  | { action: 'await_interrupt' }
  | { action: 'take_and_start' }
  | { action: 'restart' }
  | { action: 'wake' }
  | { action: 'record_for_resume' }
  | { action: 'record_only' }
  | { action: 'refuse'; reason: RefusalReason };

/**
 * The session's view for {@link decideSessionOperation}: from the stored session (or `null`) and its current run.
 *
 * @example
 * const view = sessionViewOf(await store.loadState(id), await store.getCurrentRun(id));
 */
export function sessionViewOf(
  state: { status: SessionStatus; suspendedStepId?: string } | null,
  run: { status: RunStatus } | null,
): SessionView {
  if (state === null) return { status: 'missing', run: run?.status ?? 'none', parked: false };
  return { status: state.status, run: run?.status ?? 'none', parked: state.suspendedStepId !== undefined };
}

/** Runs that wait for humans (or for children that do) after their workflow ended: a resume continues them. */
const PARKED_RUNS: ReadonlySet<RunStatus | 'none'> = new Set(['suspended_client_tool', 'suspended_awaiting_children']);

/**
 * Whether a run status is a parked one: `suspended_client_tool` (waits for humans) or `suspended_awaiting_children`
 * (only its sub-agents wait). `resume()` continues either.
 *
 * @example
 * isParkedRunStatus('suspended_awaiting_children'); // true
 */
export function isParkedRunStatus(status: RunStatus | 'none' | undefined): boolean {
  return status !== undefined && PARKED_RUNS.has(status);
}

/** An aborted session: abort() records the run `aborted` and the session `failed` (failureReason `aborted`). */
function isAborted(view: SessionView): boolean {
  return view.status === 'failed' && view.run === 'aborted';
}

/** An `active` session whose parked step has not been taken by a resume yet. */
function isParked(view: SessionView): boolean {
  return view.status === 'active' && view.parked && PARKED_RUNS.has(view.run);
}

/**
 * The session state machine: which operation may act on which (session status, run status), and what it
 * does. Pure; the executor asks it instead of branching on statuses itself.
 *
 * @example
 * decideSessionOperation('execute', { status: 'completed', run: 'completed', parked: false }); // { action: 'start_turn' }
 * decideSessionOperation('resume', { status: 'failed', run: 'aborted', parked: false }); // refuse: aborted
 */
export function decideSessionOperation(operation: SessionOperation, view: SessionView): SessionDecision {
  switch (operation) {
    case 'execute':
      return decideExecute(view);
    case 'resume':
      return decideResume(view);
    case 'retry':
      return decideRetry(view);
    case 'submit':
      return decideSubmit(view);
  }
}

function refuse(reason: RefusalReason): SessionDecision {
  return { action: 'refuse', reason };
}

function decideExecute(view: SessionView): SessionDecision {
  if (view.status === 'missing') return { action: 'create' };
  if (isAborted(view)) return refuse('aborted');
  switch (view.status) {
    case 'completed':
      return { action: 'start_turn' };
    case 'active':
      if (isParked(view)) return refuse('awaiting_humans');
      return view.run === 'running' ? { action: 'attach' } : { action: 'await_run' };
    default:
      return refuse('not_continuable');
  }
}

function decideResume(view: SessionView): SessionDecision {
  if (view.status === 'missing') return refuse('not_found');
  if (isAborted(view)) return refuse('aborted');
  switch (view.status) {
    case 'interrupted':
    case 'paused':
      return { action: 'take_and_start' };
    case 'active':
      if (isParked(view)) return { action: 'take_and_start' };
      if (view.run === 'running') return view.interrupting === true ? { action: 'await_interrupt' } : { action: 'attach' };
      return { action: 'await_run' };
    default:
      return refuse('not_resumable');
  }
}

function decideRetry(view: SessionView): SessionDecision {
  if (view.status === 'missing') return refuse('not_found');
  return view.status === 'failed' ? { action: 'restart' } : refuse('not_retryable');
}

function decideSubmit(view: SessionView): SessionDecision {
  if (view.status === 'missing') return { action: 'record_only' };
  if (view.status === 'active' && view.run === 'running') return { action: 'wake' };
  if (isParked(view) || view.status === 'interrupted' || view.status === 'paused') return { action: 'record_for_resume' };
  // Taken by a resume whose run is starting: that run reads the recorded answer from the store.
  if (view.status === 'active') return { action: 'wake' };
  return { action: 'record_only' };
}

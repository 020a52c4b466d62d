import type { SessionStateStore } from '../store/state-store.js';
import type { RunStatus, SessionStatus } from '../types/session.js';

/** A session `active` without a live run for this long lost its start (the starting process stopped). */
const LOST_START_AFTER_MS = 10_000;

/** The session status an ended run leaves behind. */
const STATUS_AFTER_RUN: Partial<Record<RunStatus, SessionStatus>> = {
  completed: 'completed',
  failed: 'failed',
  aborted: 'failed',
  interrupted: 'interrupted',
};

/**
 * Repair a session whose start was lost: a process took it (created it, or swapped it to `active`) and
 * stopped before recording the new run, so no run will ever end it. When the session has been `active`
 * for a while with no run, or with only an ended run, restore what the last run left (or drop the empty
 * session a brand-new start created), so execute()/resume()/retry() work again. Version-checked; returns
 * true when it repaired something.
 */
export async function repairLostStart(stateStore: SessionStateStore, sessionId: string): Promise<boolean> {
  const state = await stateStore.loadState(sessionId);
  if (state === null || state.status !== 'active' || Date.now() - state.updatedAt < LOST_START_AFTER_MS) return false;
  const run = await stateStore.getCurrentRun(sessionId);
  if (run === null) {
    if ((await stateStore.getMessageCount(sessionId)) === 0) {
      const again = await stateStore.loadState(sessionId);
      if (again?.version !== state.version) return false;
      await stateStore.deleteSession(sessionId);
      return true;
    }
    const failed = await stateStore.compareAndSetStatus(sessionId, ['active'], 'failed', {
      expectedVersion: state.version,
      error: 'The run never started: the process starting it stopped. retry() runs the session again.',
    });
    return failed.ok;
  }
  const restored = STATUS_AFTER_RUN[run.status];
  if (restored === undefined) return false;
  return (await stateStore.compareAndSetStatus(sessionId, ['active'], restored, { expectedVersion: state.version })).ok;
}

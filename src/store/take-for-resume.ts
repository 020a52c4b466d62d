import { StaleStateError } from '../errors/index.js';
import type { SessionState } from '../types/session.js';
import type { SessionStateStore } from './state-store.js';

/**
 * Take the session for a resume, exactly once among concurrent callers. An interrupted/paused session swaps
 * its status; a parked one stays `active`, so the swap clears `suspendedStepId` under the version read: a
 * loser re-reads a session that is no longer parked and waits for the winner's run instead of starting one.
 *
 * @example
 * if (!(await takeForResume(stateStore, sessionId, state, parked))) continue; // lost the race: decide again
 */
export async function takeForResume(stateStore: SessionStateStore, sessionId: string, state: SessionState, parked: boolean): Promise<boolean> {
  if (!parked) return (await stateStore.compareAndSetStatus(sessionId, [state.status], 'active', { expectedVersion: state.version })).ok;
  try {
    await stateStore.saveState(sessionId, { suspendedStepId: undefined }, { expectedVersion: state.version });
    return true;
  } catch (error) {
    if (StaleStateError.isInstance(error)) return false;
    throw error;
  }
}

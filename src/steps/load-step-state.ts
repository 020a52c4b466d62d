import type { SessionStateStore } from '../store/state-store.js';
import type { SessionState } from '../types/session.js';

/**
 * The session for an LLM step that got no commit report (a run's first step, or another process's): through the
 * store's `stepRecords.loadStateForStep` when it declares one (it primes the step's commit, so that needs no locked
 * read), else `loadState`.
 *
 * @example
 * const state = await loadStepState(stateStore, 's1');
 */
export function loadStepState(stateStore: SessionStateStore, sessionId: string): Promise<SessionState | null> {
  const stepRecords = stateStore.stepRecords;
  return stepRecords === undefined ? stateStore.loadState(sessionId) : stepRecords.loadStateForStep(sessionId);
}

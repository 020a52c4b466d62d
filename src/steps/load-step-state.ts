import type { SessionStateStore } from '../store/state-store.js';
import type { SessionState } from '../types/session.js';

/** A store that primes its next step commit from the read an LLM step makes (`PostgresStateStore`). */
interface PrimingStore {
  loadStateForStep(sessionId: string): Promise<SessionState | null>;
}

/**
 * The session for an LLM step that got no commit report (a run's first step, or another process's): through the
 * store's `loadStateForStep` when it has one (it primes the step's commit, so that needs no locked read).
 *
 * @example
 * const state = await loadStepState(stateStore, 's1');
 */
export function loadStepState(stateStore: SessionStateStore, sessionId: string): Promise<SessionState | null> {
  const store = stateStore as Partial<PrimingStore>;
  return typeof store.loadStateForStep === 'function' ? store.loadStateForStep(sessionId) : stateStore.loadState(sessionId);
}

import { StaleStateError } from '../errors/index.js';
import type { SessionStateStore } from './state-store.js';
import type { SessionState, SessionStateWrite } from '../types/session.js';

/** Attempts of a read-modify-write before giving up (each loss means another writer made progress). */
const MAX_CAS_ATTEMPTS = 50;

/**
 * Read-modify-write a session with optimistic concurrency: `change` derives a write from the current state
 * (or returns `null` for "nothing to do"); the write is saved with `expectedVersion`, and a lost race is
 * retried on fresh state. Returns what `change` returned last, with the state it saw.
 */
export async function updateSessionWithRetry<T>(
  store: SessionStateStore,
  sessionId: string,
  change: (state: SessionState) => { write: SessionStateWrite | null; value: T },
): Promise<{ value: T; state: SessionState }> {
  for (let attempt = 1; ; attempt += 1) {
    const state = await store.loadState(sessionId);
    if (state === null) throw new Error('The session no longer exists.');
    const { write, value } = change(state);
    if (write === null) return { value, state };
    try {
      await store.saveState(sessionId, write, { expectedVersion: state.version });
      return { value, state };
    } catch (error) {
      if (!StaleStateError.isInstance(error) || attempt >= MAX_CAS_ATTEMPTS) throw error;
    }
  }
}

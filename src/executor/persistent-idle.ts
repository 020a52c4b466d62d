import { StaleStateError } from '../errors/index.js';
import { parkedPastIdleTimeout, readPersistentMarker, withPersistentMarker } from '../orchestration/persistent-session.js';
import type { SessionStateStore } from '../store/state-store.js';

/** Lost version races before giving up (each is another writer's change, re-read and re-decided). */
const MAX_ATTEMPTS = 8;

/**
 * Record `idle_timeout` on a parked persistent session whose idle deadline has passed (the marker's end reason
 * `parked` → `idle_timeout`), version-checked so a concurrent restart wins. Called on a status read (`getHandle`); a
 * message after the deadline restarts the session as after a park. Returns true when it recorded it.
 *
 * @example
 * await settleIdleTimeout(stateStore, 'chat-1');
 */
export async function settleIdleTimeout(stateStore: SessionStateStore, sessionId: string, now: number = Date.now()): Promise<boolean> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
    const state = await stateStore.loadState(sessionId);
    const marker = readPersistentMarker(state?.metadata);
    if (state === null || marker === undefined || !parkedPastIdleTimeout(marker, now)) return false;
    try {
      await stateStore.saveState(sessionId, { metadata: withPersistentMarker(state.metadata, { ...marker, endReason: 'idle_timeout' }) }, { expectedVersion: state.version });
      return true;
    } catch (error) {
      if (!StaleStateError.isInstance(error)) throw error;
    }
  }
  return false;
}

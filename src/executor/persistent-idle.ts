import { StaleStateError } from '../errors/index.js';
import { updateSessionIfExists } from '../store/update-session-with-retry.js';
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
  try {
    const settled = await updateSessionIfExists(
      stateStore,
      sessionId,
      (state) => {
        const marker = readPersistentMarker(state.metadata);
        if (marker === undefined || !parkedPastIdleTimeout(marker, now)) return { write: null, value: false };
        return { write: { metadata: withPersistentMarker(state.metadata, { ...marker, endReason: 'idle_timeout' }) }, value: true };
      },
      { maxAttempts: MAX_ATTEMPTS },
    );
    return settled?.value ?? false;
  } catch (error) {
    // Every attempt lost its race: a concurrent restart won, as intended.
    if (StaleStateError.isInstance(error)) return false;
    throw error;
  }
}

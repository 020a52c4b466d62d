import { SessionNotFoundError, StaleStateError } from '../errors/index.js';
import type { SessionStateStore } from './state-store.js';
import type { SessionState, SessionStateWrite } from '../types/session.js';

/** Attempts of a read-modify-write before giving up (each loss means another writer made progress). */
const MAX_CAS_ATTEMPTS = 50;

/**
 * How {@link updateSessionWithRetry} reads, retries and saves.
 *
 * @example
 * const options: SessionUpdateOptions = { knownState: state, maxAttempts: 8 };
 */
export interface SessionUpdateOptions {
  /** The state to decide on first (e.g. one the caller just read); a lost race reloads it. */
  knownState?: SessionState;
  /** Attempts before a lost race's StaleStateError is thrown (default 50; `Infinity` retries until a write lands). */
  maxAttempts?: number;
  /** Saves a write version-checked (default `store.saveState(sessionId, write, { expectedVersion })`); must throw StaleStateError on a lost race. */
  save?: (write: SessionStateWrite, expectedVersion: number) => Promise<unknown>;
}

/** Decides the write (`null`: nothing to do) and the value to return from the current state; `attempt` counts from 1. */
type SessionChange<T> = (state: SessionState, attempt: number) => { write: SessionStateWrite | null; value: T };

/**
 * Read-modify-write a session with optimistic concurrency: `change` derives a write from the current state
 * (or returns `null` for "nothing to do"); the write is saved with `expectedVersion`, and a lost race is
 * retried on fresh state. Returns what `change` returned last, with the state it saw.
 *
 * @throws SessionNotFoundError `SESSION_NOT_FOUND` when the session does not exist (see {@link sessionDeletedError});
 *   StaleStateError `STALE_STATE` when every attempt lost its race.
 * @example
 * await updateSessionWithRetry(store, sessionId, (state) => ({ write: { stepCount: state.stepCount + 1 }, value: undefined }));
 */
export async function updateSessionWithRetry<T>(
  store: SessionStateStore,
  sessionId: string,
  change: SessionChange<T>,
  options: SessionUpdateOptions = {},
): Promise<{ value: T; state: SessionState }> {
  const updated = await updateSessionIfExists(store, sessionId, change, options);
  if (updated === null) throw sessionDeletedError(sessionId);
  return updated;
}

/**
 * {@link updateSessionWithRetry} for a session that may be gone: `null` when it does not exist (at any attempt).
 *
 * @throws StaleStateError `STALE_STATE` when every attempt lost its race.
 * @example
 * const closed = await updateSessionIfExists(store, sessionId, (state) => ({ write: closeMarker(state), value: true }));
 * if (closed === null) return; // the session was deleted
 */
export async function updateSessionIfExists<T>(
  store: SessionStateStore,
  sessionId: string,
  change: SessionChange<T>,
  options: SessionUpdateOptions = {},
): Promise<{ value: T; state: SessionState } | null> {
  const maxAttempts = options.maxAttempts ?? MAX_CAS_ATTEMPTS;
  const save = options.save ?? ((write, expectedVersion) => store.saveState(sessionId, write, { expectedVersion }));
  for (let attempt = 1; ; attempt += 1) {
    const state = attempt === 1 && options.knownState !== undefined ? options.knownState : await store.loadState(sessionId);
    if (state === null) return null;
    const { write, value } = change(state, attempt);
    if (write === null) return { value, state };
    try {
      await save(write, state.version);
      return { value, state };
    } catch (error) {
      if (!StaleStateError.isInstance(error) || attempt >= maxAttempts) throw error;
    }
  }
}

/**
 * The error for a session that was deleted while a run or an operation used it (`SESSION_NOT_FOUND`).
 *
 * @example
 * if (state === null) throw sessionDeletedError(input.sessionId);
 */
export function sessionDeletedError(sessionId: string): SessionNotFoundError {
  return new SessionNotFoundError(sessionId, { hint: 'it was deleted while a run or an operation used it; start a new session with execute().' });
}

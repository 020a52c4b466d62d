import type { SessionStateStore } from '../store/state-store.js';
import type { StreamManager } from '../stream/stream-manager.js';
import type { RunRecord, SessionState } from '../types/session.js';
import type { StreamInfo } from '../types/stream.js';
import { rememberNewest } from '../orchestration/bounded-map.js';

/**
 * What a caller of `planRun` read already: the previous run and, optionally, the stream under the session's id (or
 * the read of it under way).
 *
 * @example
 * const known: KnownReads = { previous: null, stream: streamManager.getInfo(sessionId) };
 */
export interface KnownReads {
  previous: RunRecord | null;
  stream?: StreamInfo | null | Promise<StreamInfo | null>;
}

/**
 * What `execute()` reads after the session: its current run and, when its status lets a turn start (`completed`), its
 * stream (`undefined`: not read).
 *
 * @example
 * const { run, stream } = await reads.after(existing);
 */
export interface AfterSession {
  run: RunRecord | null;
  stream: StreamInfo | null | undefined;
}

/**
 * The reads of {@link executeReads}: the session's under way, the rest to take once it is in.
 *
 * @example
 * const { run } = await reads.after(await reads.session);
 */
export interface ExecuteReads {
  session: Promise<SessionState | null>;
  /** The stream read beside the session (none for a branch or a session found stored before); for a new session's start. */
  newStream: () => Promise<StreamInfo | null> | undefined;
  after: (existing: SessionState | null) => Promise<AfterSession>;
}

/**
 * The reads `execute()` decides a standard session's operation from, overlapped where that changes no decision:
 * - `session`: the session (`loadState`). Beside it, unless `branch` or the session was found stored by this process's
 *   last read of it, the stream under the session's id, which only a new session's start uses (`newStream`; else its
 *   start reads it): with no session there is no run and no turn in between to see.
 * - `after(existing)`: the current run and, for a `completed` session, its stream, side by side, both read after the
 *   session as before (a start's status swap expects the session's version, so neither can predate a change it
 *   misses); nothing for a missing session.
 *
 * @example
 * const reads = executeReads(config, sessionId, options.branch !== undefined);
 * const existing = await reads.session;
 * const { run, stream } = await reads.after(existing);
 */
export function executeReads(
  { stateStore, streamManager }: { stateStore: SessionStateStore; streamManager: StreamManager },
  sessionId: string,
  branch: boolean,
): ExecuteReads {
  const session = stateStore.loadState(sessionId);
  const speculative = branch || storedSessions.has(sessionId) ? undefined : streamManager.getInfo(sessionId);
  // Awaited only for a new session; its failure then surfaces there, never unhandled meanwhile.
  speculative?.catch(() => undefined);
  return {
    session,
    newStream: () => {
      noteStored(sessionId, true); // being created: its next execute() is most likely a later turn
      return speculative;
    },
    after: async (existing) => {
      noteStored(sessionId, existing !== null);
      if (existing === null) return { run: null, stream: undefined };
      const stream = existing.status === 'completed' ? streamManager.getInfo(sessionId) : undefined;
      stream?.catch(() => undefined);
      const run = await stateStore.getCurrentRun(sessionId);
      return { run, stream: await stream };
    },
  };
}

/** At most this many session ids are remembered as stored (the oldest forgotten first). */
const STORED_SESSIONS_KEPT = 1024;

/**
 * Session ids this process last found stored or went on to create: a hint only (their next `execute()` is most likely
 * a later turn, which reads its stream after the session); one not stored after all just has its start read it.
 */
const storedSessions = new Map<string, true>();

function noteStored(sessionId: string, stored: boolean): void {
  if (stored) rememberNewest(storedSessions, sessionId, true, STORED_SESSIONS_KEPT);
  else storedSessions.delete(sessionId);
}

import type { SessionStateStore } from '../store/state-store.js';
import type { StreamManager } from '../stream/stream-manager.js';
import type { RunRecord, SessionState } from '../types/session.js';
import type { StreamInfo } from '../types/stream.js';

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
  /** The stream read beside the session (none for a branch); for a new session's start. */
  newStream: () => Promise<StreamInfo | null> | undefined;
  after: (existing: SessionState | null) => Promise<AfterSession>;
}

/**
 * The reads `execute()` decides a standard session's operation from, overlapped where that changes no decision:
 * - `session`: the session, with its latest run in the same statement where the store offers it
 *   (`stepRecords.loadStateForStart`: one snapshot, so the run cannot predate the version the start's swap expects).
 *   Beside it, unless `branch`, the stream under the session's id.
 * - `newStream()`: that stream, for a new session's start (with no session there is no run and no turn in between).
 * - `after(existing)`: the current run (read now when the store has no combined read) and, for a `completed` session,
 *   its stream: the one read beside the session when {@link streamReadIsCurrent} shows it postdates the session's
 *   latest run's end (a later turn: one read round trip, as the first), else read again now; nothing for a missing
 *   session.
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
  const withRun = stateStore.stepRecords?.loadStateForStart?.(sessionId);
  withRun?.catch(() => undefined); // its failure surfaces through `session`
  const session = withRun === undefined ? stateStore.loadState(sessionId) : withRun.then(({ state }) => state);
  const beside = branch ? undefined : streamManager.getInfo(sessionId);
  // Awaited only when used; its failure then surfaces there, never unhandled meanwhile.
  beside?.catch(() => undefined);
  return {
    session,
    newStream: () => beside,
    after: async (existing) => {
      if (existing === null) return { run: null, stream: undefined };
      const run = withRun === undefined ? await stateStore.getCurrentRun(sessionId) : (await withRun).run;
      if (existing.status !== 'completed') return { run, stream: undefined };
      const early = await beside?.catch(() => undefined);
      const stream = early !== undefined && streamReadIsCurrent(early, run) ? early : await streamManager.getInfo(sessionId);
      return { run, stream };
    },
  };
}

/**
 * Whether a stream read that may predate the session read (read beside it) is the stream a start of the next turn
 * plans from: the session's latest `run` (read with or after the session) wrote past its start and the stream is not
 * active, so it was read after that run ended it — and nothing writes to it before the next turn's start, whose swap
 * changes the session's version. A read before that run's start, or during it, fails this (read it again).
 *
 * @example
 * streamReadIsCurrent({ status: 'ended', lastSequence: 9, … }, { startSequence: 4, … }); // true
 */
export function streamReadIsCurrent(stream: StreamInfo | null, run: Pick<RunRecord, 'startSequence'> | null): boolean {
  return stream !== null && run !== null && stream.status !== 'active' && stream.lastSequence > run.startSequence;
}

import type { SessionStateStore } from '../store/state-store.js';
import type { StreamManager } from '../stream/stream-manager.js';
import type { RunRecord } from '../types/session.js';
import type { StreamInfo } from '../types/stream.js';
import { rememberNewest } from '../orchestration/bounded-map.js';

/**
 * The reads a run's finish starts from: the session's current run and, when the finish may join its record, the stream.
 *
 * @example
 * const current = await (takeFinishReads(stateStore, runId, step)?.current ?? stateStore.getCurrentRun(sessionId));
 */
export interface FinishReads {
  readonly current: Promise<RunRecord | null>;
  readonly stream?: Promise<StreamInfo | null>;
}

/** Reads started and not yet taken, per run (a run whose answer was not its last step leaves its entry behind). */
const MAX_STARTED = 256;

const started = new Map<string, { store: SessionStateStore; step: number; reads: FinishReads }>();

/**
 * Start a run's finish reads while the LLM step that answered without tool calls records itself: most such answers end
 * the run, and its finish then takes them instead of reading after that record (one round trip fewer before the result).
 * Neither read is changed by the step's record (it appends chunks, it writes neither the run nor the stream's status),
 * so they are older than the finish's own reads by that record only. What they guard against, a newer run that took
 * the session, comes with a crash and a replay: a recovered process started no reads, and a replayed step runs none.
 * `withStream`: the finish may join its record (see `finishMayJoinRecord`).
 *
 * @example
 * startFinishReads(stateStore, streamManager, { ...input, withStream: finishMayJoinRecord(hooks, input) });
 */
export function startFinishReads(
  store: SessionStateStore,
  streams: Pick<StreamManager, 'getInfo'>,
  at: { sessionId: string; runId: string; streamId: string; step: number; withStream: boolean },
): void {
  const current = store.getCurrentRun(at.sessionId);
  const stream = at.withStream ? streams.getInfo(at.streamId) : undefined;
  // Taken (and awaited) by the finish, or dropped: never an unhandled rejection.
  for (const read of [current, stream]) read?.catch(() => undefined);
  rememberNewest(started, at.runId, { store, step: at.step, reads: { current, ...(stream === undefined ? {} : { stream }) } }, MAX_STARTED);
}

/**
 * The reads {@link startFinishReads} started for the finish of run `runId` after step `step` on `store` (taken once),
 * or `undefined` (none, another step's, another store's): the finish then reads for itself.
 *
 * @example
 * const early = takeFinishReads(stateStore, input.runId, input.stepCount);
 */
export function takeFinishReads(store: SessionStateStore, runId: string, step: number): FinishReads | undefined {
  const entry = started.get(runId);
  started.delete(runId);
  return entry?.store === store && entry.step === step ? entry.reads : undefined;
}

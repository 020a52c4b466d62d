/**
 * @internal Points of a run's start, begin and finish where crash drills stop a worker: the start's writes committed
 * and its workflow function not running yet (`start_recorded`: on the fused journal DBOS's record of the workflow's
 * start committed with them, else DBOS has not recorded it); the step's writes are done (on the fused journal handed
 * to its record, not committed yet; otherwise committed on their own) and its DBOS record is not (`begin_deferred`,
 * `finish_deferred`); or the finish is recorded and its workflow function has not returned (`finish_recorded`: on the
 * fused journal a root run's end is recorded with the finish, else DBOS writes it after).
 */
export type RunBoundaryProbePoint = 'start_recorded' | 'begin_deferred' | 'finish_deferred' | 'finish_recorded';

let probe: ((point: RunBoundaryProbePoint, sessionId: string) => Promise<void>) | undefined;

/**
 * @internal Install (or with `undefined` remove) the crash-drill probe. Never set in production.
 *
 * @example
 * setRunBoundaryProbeForTesting(async (point) => { if (point === 'finish_deferred') await new Promise(() => {}); });
 */
export function setRunBoundaryProbeForTesting(next: typeof probe): void {
  probe = next;
}

/**
 * @internal Stop at `point` when a crash drill asks to (a no-op otherwise).
 *
 * @example
 * await atRunBoundary('begin_deferred', input.sessionId);
 */
export async function atRunBoundary(point: RunBoundaryProbePoint, sessionId: string): Promise<void> {
  await probe?.(point, sessionId);
}

/**
 * The metadata key on a companion's session that names the newest turn its parent sent it (the run id of the turn
 * the latest spawnAgent or sendMessage started). Written before the message is routed, so it is durable before the
 * turn can exist; `waitForResult` waits for that turn while it has no run record yet (queued).
 *
 * @example
 * await stateStore.patchMetadata(childSessionId, { [COMPANION_LATEST_TURN_KEY]: turnRunId });
 */
export const COMPANION_LATEST_TURN_KEY = 'dbosCompanionLatestTurn';

/**
 * The metadata patch that records `turnRunId` as the newest turn a parent sent its companion.
 *
 * @example
 * await stateStore.patchMetadata('s1-agent-r', latestCompanionTurnPatch('run-sub-1a2b'));
 */
export function latestCompanionTurnPatch(turnRunId: string): Record<string, string> {
  return { [COMPANION_LATEST_TURN_KEY]: turnRunId };
}

/**
 * The newest turn a parent sent its companion, read from the companion session's metadata (undefined: none recorded).
 *
 * @example
 * readLatestCompanionTurn({ dbosCompanionLatestTurn: 'run-sub-1a2b' }); // 'run-sub-1a2b'
 */
export function readLatestCompanionTurn(metadata: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const value = metadata?.[COMPANION_LATEST_TURN_KEY];
  return typeof value === 'string' ? value : undefined;
}

/**
 * What `waitForResult` reads for a companion:
 * - `terminated`: its ref says terminated, or its session was aborted;
 * - `pending`: the newest turn its parent sent has no run record yet and its workflow is not closed (the message is
 *   queued behind a running turn, or its turn is about to open) — keep waiting;
 * - `running`: its ref says a turn runs — keep waiting;
 * - `current_run`: the outcome of its current run (the newest turn opened and its end was reported).
 *
 * @example
 * decideCurrentTurn({ terminated: false, latestTurn: 'not_opened', generationClosed: false, refRunning: false }); // 'pending'
 */
export type CurrentTurnAction = 'terminated' | 'pending' | 'running' | 'current_run';

/** The companion as `decideCurrentTurn` sees it. */
export interface CurrentTurnView {
  /** Its ref says `terminated`, or its session was aborted. */
  terminated: boolean;
  /** The newest turn its parent sent: none recorded, no run record yet, or opened (run recorded). */
  latestTurn: 'none' | 'not_opened' | 'opened';
  /** Its persistent marker is `closed` (parked, failed, shut down): nothing runs a queued message until the next send. */
  generationClosed: boolean;
  /** Its ref says `running`. */
  refRunning: boolean;
}

/**
 * Table of what `waitForResult` reads for a companion. Pure. A queued turn counts as running even when the previous
 * turn's end already wrote `completed` to the ref, so the previous output is never returned for it.
 *
 * @example
 * decideCurrentTurn({ terminated: false, latestTurn: 'opened', generationClosed: false, refRunning: false }); // 'current_run'
 */
export function decideCurrentTurn(view: CurrentTurnView): CurrentTurnAction {
  if (view.terminated) return 'terminated';
  if (view.latestTurn === 'not_opened' && !view.generationClosed) return 'pending';
  return view.refRunning ? 'running' : 'current_run';
}

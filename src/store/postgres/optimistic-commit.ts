import type { CommittedSession } from './commit-cache.js';

/**
 * Whether an optimistic commit of step `checkpointId` may be tried from `known` (what this process's last commit of
 * the session left): not when that commit was this very step (a re-run of a step whose commit is durable must find
 * its checkpoint), nor when the caller expects another version.
 *
 * @example
 * if (known !== undefined && mayCommitOptimistically(known, meta.checkpointId, options.expectedVersion)) { … }
 */
export function mayCommitOptimistically(known: CommittedSession, checkpointId: string, expectedVersion: number | undefined): boolean {
  return known.state.checkpointId !== checkpointId && (expectedVersion === undefined || expectedVersion === known.state.version);
}

/**
 * Whether an optimistic commit failed because what it assumed no longer holds (a guard: the session was written
 * since, SQLSTATE 22012) or its rows exist already (23505, 23P01): the commit then runs again, reading first.
 *
 * @example
 * if (!refusedOptimisticCommit(error)) throw error;
 */
export function refusedOptimisticCommit(error: unknown): boolean {
  // The store reports the driver's error as a StoreError naming its SQLSTATE.
  const failure = error as { code?: unknown; data?: { sqlState?: unknown }; cause?: { code?: unknown } } | null;
  const code = failure?.data?.sqlState ?? failure?.cause?.code ?? failure?.code;
  return code === '22012' || code === '23505' || code === '23P01';
}

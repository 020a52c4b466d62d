import type { SessionState } from '../../types/session.js';
import type { CommitCache } from './commit-cache.js';
import type { PostgresContext } from './database.js';
import { readSession } from './session-read.js';

/**
 * The session for a run's first LLM step (nothing known yet), remembered for the step's commit when this process has
 * nothing newer, the row leaves its state to its checkpoint (so a delta on that checkpoint is right) or has none yet
 * (the commit writes a snapshot), and no interrupt is requested: that commit then needs no locked read — its guard (`xmin`) fails on any write since, as after
 * a commit of this process.
 *
 * @example
 * const state = await primeStepCommit(context, 's1', cache);
 */
export async function primeStepCommit({ database, tables }: PostgresContext, sessionId: string, cache: CommitCache): Promise<SessionState | null> {
  const read = await database.run('load a session', (connection) => readSession(connection, tables, sessionId, { lock: false, xmin: true }));
  if (read === undefined) return null;
  // A delta on the pointer checkpoint is right only when the row leaves its state to it; no checkpoint: a snapshot.
  const chainBytes = read.state.checkpointId === undefined ? 0 : read.stateInCheckpoint ? read.pointerChainBytes : undefined;
  if (read.xmin !== undefined && chainBytes !== undefined && !read.interruptRequested) {
    const state = { ...read.state, customState: structuredClone(read.state.customState) };
    cache.rememberIfAbsent(sessionId, { xmin: read.xmin, state, messageCount: read.messageCount, chainBytes });
  }
  return read.state;
}

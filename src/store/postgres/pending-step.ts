import { canSendAhead } from '../../database/send-ahead.js';
import { SessionNotFoundError } from '../../errors/index.js';
import type { Message } from '../../types/message.js';
import type { SessionState } from '../../types/session.js';
import type { CommitCache } from './commit-cache.js';
import type { PostgresContext, SqlConnection } from './database.js';
import { readSession } from './session-read.js';
import type { StoreTables } from './tables.js';

/**
 * An LLM step's result as its record in the session row (`pending_step`, migration 013): kept until the next step's.
 *
 * @example
 * const pending: PendingStep = { runId: 'run-1', step: 3, result: { text: '', toolCalls: [] } };
 */
export interface PendingStep {
  runId: string;
  step: number;
  result: unknown;
}

/**
 * Write `pending` into the session row inside a step record's transaction (sent ahead in pipeline mode). The row's
 * `xmin` changes; when this process's last step commit left it (the commit cache holds that `xmin`), the entry moves
 * to this transaction once it commits, so the step's commit still needs no locked read — a write by anyone else in
 * between leaves the entry behind, and that commit's guard then fails as before.
 *
 * @example
 * const { onCommitted } = await writePendingStepOn(connection, tables, 's1', pending, cache);
 */
export async function writePendingStepOn(
  connection: SqlConnection,
  tables: StoreTables,
  sessionId: string,
  pending: PendingStep,
  cache: CommitCache,
): Promise<{ onCommitted(outcome: { transactionId?: string }): void }> {
  // The locked read runs first (joined, not a RETURNING subquery, which would run after the update and find the row
  // changed); locking follows a concurrent writer's update, so its `xmin` is the latest one.
  const text = `WITH previous AS MATERIALIZED (SELECT xmin::text AS previous_xmin FROM ${tables.sessions} WHERE session_id = $1 FOR NO KEY UPDATE)
    UPDATE ${tables.sessions} AS session SET pending_step = $2 FROM previous WHERE session.session_id = $1 RETURNING previous.previous_xmin`;
  const values = [sessionId, JSON.stringify(pending)];
  let previous: string | undefined;
  const check = (result: { rows: Array<Record<string, unknown>> }): void => {
    const row = result.rows[0];
    if (row === undefined) throw new SessionNotFoundError(sessionId);
    previous = String(row.previous_xmin);
  };
  if (canSendAhead(connection)) await connection.sendAhead(text, values, check);
  else check(await connection.query(text, values));
  return {
    onCommitted: (outcome) => {
      if (previous !== undefined && outcome.transactionId !== undefined) cache.advance(sessionId, previous, outcome.transactionId);
    },
  };
}

/**
 * What a step of the session left of itself: the pending step in the session row, and message `stepMessageId` (its
 * assistant message, or its tool's result) when its agent step was committed — a step's messages commit with its
 * checkpoint (one statement).
 *
 * @example
 * const { pending, message } = await readStepWitness(connection, tables, 's1', 'run-1:3:0');
 */
export async function readStepWitness(
  connection: SqlConnection,
  tables: StoreTables,
  sessionId: string,
  stepMessageId: string,
): Promise<{ pending?: PendingStep; message?: Message }> {
  const { rows } = await connection.query<{ pending_step: string | null; message: string | null }>(
    `SELECT session.pending_step, stored.message
     FROM ${tables.sessions} AS session
     LEFT JOIN ${tables.messages} AS stored
       ON (stored.session_id || chr(31) || stored.message_id) = ($1 || chr(31) || $2) AND stored.session_id = $1 AND stored.message_id = $2
     WHERE session.session_id = $1`,
    [sessionId, stepMessageId],
  );
  const row = rows[0];
  if (row === undefined) throw new SessionNotFoundError(sessionId);
  return {
    ...(row.pending_step === null ? {} : { pending: JSON.parse(row.pending_step) as PendingStep }),
    ...(row.message === null ? {} : { message: { ...(JSON.parse(row.message) as Message), id: stepMessageId } }),
  };
}

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

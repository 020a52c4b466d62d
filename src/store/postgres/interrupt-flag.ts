import { writeAhead } from '../../database/send-ahead.js';
import { randomUUID } from 'node:crypto';
import { SessionNotFoundError } from '../../errors/index.js';
import type { InterruptFlagResult } from '../../types/session.js';
import { assertIdentifier } from '../validation.js';
import type { PostgresContext } from './database.js';

/**
 * Set the durable interrupt flag (does not bump the session version, so a running commit is not made stale).
 *
 * @example
 * await setPostgresInterruptFlag(context, 's1', 'user clicked Stop');
 */
export async function setPostgresInterruptFlag({ database, tables }: PostgresContext, sessionId: string, reason?: string): Promise<void> {
  assertIdentifier(sessionId, 'sessionId');
  const result = await database.run('set the interrupt flag', (connection) =>
    connection.query(`UPDATE ${tables.sessions} SET interrupt_requested = true, interrupt_reason = $2 WHERE session_id = $1`, [
      sessionId,
      reason ?? null,
    ]),
  );
  if (result.rowCount !== 1) throw new SessionNotFoundError(sessionId);
}

/**
 * Atomic check-and-clear in one statement: the locking sub-select re-checks the flag after waiting, so of
 * concurrent checkers exactly one sees `interrupted: true`. Retry-safe: the clearing statement leaves this
 * call's token and the reason on the row, so a check retried after an unknown outcome (connection lost
 * with the statement in flight) finds its own consumption and still reports the interrupt.
 *
 * @example
 * const { interrupted, reason } = await checkPostgresInterruptFlag(context, 's1');
 */
export async function checkPostgresInterruptFlag({ database, tables }: PostgresContext, sessionId: string): Promise<InterruptFlagResult> {
  assertIdentifier(sessionId, 'sessionId');
  const token = randomUUID();
  const row = await database.run('check the interrupt flag', async (connection, attempt) => {
    if (attempt.ambiguous) {
      const consumed = await connection.query<{ reason: string | null }>(
        `SELECT interrupt_consumed_reason AS reason FROM ${tables.sessions} WHERE session_id = $1 AND interrupt_consumed_by = $2`,
        [sessionId, token],
      );
      if (consumed.rows[0] !== undefined) return consumed.rows[0];
    }
    const result = await connection.query<{ reason: string | null }>(
      `UPDATE ${tables.sessions} AS target
       SET interrupt_requested = false, interrupt_reason = NULL,
           interrupt_consumed_by = $2, interrupt_consumed_reason = previous.interrupt_reason
       FROM (SELECT session_id, interrupt_reason FROM ${tables.sessions}
             WHERE session_id = $1 AND interrupt_requested FOR NO KEY UPDATE) AS previous
       WHERE target.session_id = previous.session_id
       RETURNING previous.interrupt_reason AS reason`,
      [sessionId, token],
    );
    return result.rows[0];
  });
  if (row === undefined) return { interrupted: false };
  return row.reason === null ? { interrupted: true } : { interrupted: true, reason: row.reason };
}

/**
 * Clear the interrupt flag. A flag already clear is not rewritten (no write transaction, no row version).
 *
 * @example
 * await clearPostgresInterruptFlag(context, 's1');
 */
export async function clearPostgresInterruptFlag({ database, tables }: PostgresContext, sessionId: string): Promise<void> {
  assertIdentifier(sessionId, 'sessionId');
  await database.run('clear the interrupt flag', (connection) =>
    writeAhead(
      connection,
      `UPDATE ${tables.sessions} SET interrupt_requested = false, interrupt_reason = NULL
       WHERE session_id = $1 AND (interrupt_requested OR interrupt_reason IS NOT NULL)`,
      [sessionId],
    ),
  );
}

/**
 * Whether the interrupt flag is set, without clearing it (one indexed read).
 *
 * @example
 * const requested = await isPostgresInterruptRequested(context, 's1');
 */
export async function isPostgresInterruptRequested({ database, tables }: PostgresContext, sessionId: string): Promise<boolean> {
  assertIdentifier(sessionId, 'sessionId');
  const row = await database.run('read the interrupt flag', async (connection) => {
    const result = await connection.query<{ requested: boolean }>(`SELECT interrupt_requested AS requested FROM ${tables.sessions} WHERE session_id = $1`, [sessionId]);
    return result.rows[0];
  });
  return row?.requested === true;
}

/**
 * The interrupt flag and its reason, without clearing it (one indexed read).
 *
 * @example
 * const { interrupted, reason } = await readPostgresInterruptFlag(context, 's1');
 */
export async function readPostgresInterruptFlag({ database, tables }: PostgresContext, sessionId: string): Promise<InterruptFlagResult> {
  assertIdentifier(sessionId, 'sessionId');
  const row = await database.run('read the interrupt flag and its reason', async (connection) => {
    const result = await connection.query<{ reason: string | null }>(
      `SELECT interrupt_reason AS reason FROM ${tables.sessions} WHERE session_id = $1 AND interrupt_requested`,
      [sessionId],
    );
    return result.rows[0];
  });
  if (row === undefined) return { interrupted: false };
  return row.reason === null ? { interrupted: true } : { interrupted: true, reason: row.reason };
}

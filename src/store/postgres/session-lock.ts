import { SessionNotFoundError } from '../../errors/index.js';
import type { SessionState } from '../../types/session.js';
import type { SqlConnection } from './database.js';
import { SESSION_WRITE_COLUMNS, sessionFromRow, sessionParameters, sessionPlaceholders, type SessionRow } from './session-row.js';
import type { StoreTables } from './tables.js';

/**
 * A session row read under a row lock inside a transaction.
 *
 * @example
 * const { state, messageCount }: LockedSession = await lockSession(connection, tables, 's1');
 */
export interface LockedSession {
  state: SessionState;
  messageCount: number;
  /** The interrupt flag (not part of SessionState). */
  interruptRequested: boolean;
}

/**
 * Read and lock a session row (FOR NO KEY UPDATE: writers of this session queue behind the transaction,
 * inserts of child rows do not). Throws SessionNotFoundError when it does not exist.
 *
 * @example
 * const { state, messageCount } = await lockSession(connection, tables, sessionId);
 */
export async function lockSession(connection: SqlConnection, tables: StoreTables, sessionId: string): Promise<LockedSession> {
  const result = await connection.query<SessionRow>(
    `SELECT * FROM ${tables.sessions} WHERE session_id = $1 FOR NO KEY UPDATE`,
    [sessionId],
  );
  const row = result.rows[0];
  if (row === undefined) throw new SessionNotFoundError(sessionId);
  return { state: sessionFromRow(row), messageCount: row.message_count, interruptRequested: row.interrupt_requested === true };
}

/**
 * Lock a session row and read only its message count (for message appends and truncation). Throws
 * SessionNotFoundError when it does not exist.
 *
 * @example
 * const messageCount = await lockMessageCount(connection, tables, sessionId);
 */
export async function lockMessageCount(connection: SqlConnection, tables: StoreTables, sessionId: string): Promise<number> {
  const result = await connection.query<{ message_count: number }>(
    `SELECT message_count FROM ${tables.sessions} WHERE session_id = $1 FOR NO KEY UPDATE`,
    [sessionId],
  );
  const row = result.rows[0];
  if (row === undefined) throw new SessionNotFoundError(sessionId);
  return row.message_count;
}

/**
 * Overwrite a locked session row with `state` (every SessionState column, plus message_count when given).
 *
 * @example
 * await writeSession(connection, tables, nextState, messageCount);
 */
export async function writeSession(connection: SqlConnection, tables: StoreTables, state: SessionState, messageCount?: number): Promise<void> {
  const parameters = sessionParameters(state);
  const placeholders = sessionPlaceholders(1);
  const assignments = SESSION_WRITE_COLUMNS.slice(1).map((column, index) => `${column} = ${placeholders[index + 1]}`);
  if (messageCount !== undefined) {
    parameters.push(messageCount);
    assignments.push(`message_count = $${parameters.length}`);
  }
  await connection.query(`UPDATE ${tables.sessions} SET ${assignments.join(', ')} WHERE session_id = $1`, parameters);
}

/**
 * Insert a session row; returns false (writing nothing) when the id is taken.
 *
 * @example
 * if (!(await insertSession(connection, tables, state))) throw new SessionAlreadyExistsError(state.sessionId);
 */
export async function insertSession(connection: SqlConnection, tables: StoreTables, state: SessionState, messageCount = 0): Promise<boolean> {
  const parameters = [...sessionParameters(state), messageCount];
  const placeholders = [...sessionPlaceholders(1), `$${parameters.length}`];
  const result = await connection.query(
    `INSERT INTO ${tables.sessions} (${SESSION_WRITE_COLUMNS.join(', ')}, message_count) VALUES (${placeholders.join(', ')})
     ON CONFLICT (session_id) DO NOTHING RETURNING session_id`,
    parameters,
  );
  return result.rowCount === 1;
}

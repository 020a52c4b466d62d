import { SessionAlreadyExistsError, SessionNotFoundError } from '../../errors/index.js';
import { postgresSqlState } from '../../database/postgres-operation.js';
import { canSendAhead, writeAhead } from '../../database/send-ahead.js';
import type { SessionState } from '../../types/session.js';
import type { SqlConnection } from './database.js';
import { SESSION_WRITE_COLUMNS, sessionParameters, sessionPlaceholders } from './session-row.js';
import type { StoreTables } from './tables.js';

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
 * With `stateInCheckpoint`, `custom_state` is written NULL: the caller guarantees that the checkpoint
 * `state.checkpointId` holds exactly `state.customState` (readers rebuild it from that checkpoint's chain),
 * so a step commit does not rewrite a growing state in the row.
 *
 * @example
 * await writeSession(connection, tables, nextState, { messageCount, stateInCheckpoint: true });
 */
export async function writeSession(
  connection: SqlConnection,
  tables: StoreTables,
  state: SessionState,
  options: { messageCount?: number; stateInCheckpoint?: boolean } = {},
): Promise<void> {
  const { text, parameters } = sessionUpdate(tables, state, options);
  await writeAhead(connection, text, parameters);
}

/**
 * {@link writeSession}'s statement (`UPDATE … WHERE session_id = $1`, to which a caller may add conditions).
 *
 * @example
 * const { text, parameters } = sessionUpdate(tables, nextState, { messageCount: 12, stateInCheckpoint: true });
 */
export function sessionUpdate(
  tables: StoreTables,
  state: SessionState,
  options: { messageCount?: number; stateInCheckpoint?: boolean } = {},
): { text: string; parameters: unknown[] } {
  const parameters = sessionParameters(state, { omitCustomState: options.stateInCheckpoint === true });
  const placeholders = sessionPlaceholders(1);
  const assignments = SESSION_WRITE_COLUMNS.slice(1).map((column, index) => `${column} = ${placeholders[index + 1]}`);
  if (options.messageCount !== undefined) {
    parameters.push(options.messageCount);
    assignments.push(`message_count = $${parameters.length}`);
  }
  return { text: `UPDATE ${tables.sessions} SET ${assignments.join(', ')} WHERE session_id = $1`, parameters };
}

/**
 * Insert a session row; returns false (writing nothing) when the id is taken. On a connection that sends writes ahead
 * (a run start's pipelined transaction) the insert is sent ahead and returns true: a taken id then fails the
 * transaction with SessionAlreadyExistsError.
 *
 * @example
 * if (!(await insertSession(connection, tables, state))) throw new SessionAlreadyExistsError(state.sessionId);
 */
export async function insertSession(connection: SqlConnection, tables: StoreTables, state: SessionState, messageCount = 0): Promise<boolean> {
  const parameters = [...sessionParameters(state), messageCount];
  const placeholders = [...sessionPlaceholders(1), `$${parameters.length}`];
  const insert = `INSERT INTO ${tables.sessions} (${SESSION_WRITE_COLUMNS.join(', ')}, message_count) VALUES (${placeholders.join(', ')})`;
  if (canSendAhead(connection)) {
    const taken = (error: unknown): unknown => (postgresSqlState(error) === '23505' ? new SessionAlreadyExistsError(state.sessionId) : error);
    await writeAhead(connection, insert, parameters, taken);
    return true;
  }
  const result = await connection.query(`${insert} ON CONFLICT (session_id) DO NOTHING RETURNING session_id`, parameters);
  return result.rowCount === 1;
}

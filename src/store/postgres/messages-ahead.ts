import { isRefusedByError, writeAhead } from '../../database/send-ahead.js';
import { toJsonText } from '../../database/json.js';
import { SessionNotFoundError } from '../../errors/index.js';
import type { StoredMessage } from '../../types/message.js';
import type { SqlConnection } from './database.js';
import type { StoreTables } from './tables.js';

/**
 * The condition that `stored` (an alias of the messages table) holds message `id` of session `$1`, written to probe the
 * hash index behind the ids' uniqueness (migration 010: the same expression) and then check both columns.
 *
 * @example
 * const sql = `SELECT 1 FROM messages AS stored WHERE ${storedMessageIs('stored', 'wanted.id')}`;
 */
export function storedMessageIs(stored: string, id: string): string {
  return `(${stored}.session_id || chr(31) || ${stored}.message_id) = ($1 || chr(31) || ${id})
           AND ${stored}.session_id = $1 AND ${stored}.message_id = ${id}`;
}

/**
 * Prepared messages as the JSON records {@link insertPostgresMessages} unpacks: each message as compact JSON text
 * (migration 012: ~30 bytes a message less than jsonb), without its id (a column).
 *
 * @example
 * const records = messageRecords(rows);
 */
export function messageRecords(rows: readonly StoredMessage[]) {
  const now = Date.now();
  return rows.map(({ id, sequence, ...message }) => ({
    sequence,
    message_id: id,
    message: toJsonText(message, 'messages'),
    created_at: message.createdAt ?? now,
  }));
}

/**
 * Append `rows` (prepared from sequence 1, ids unique within the batch) to a session whose row the caller's transaction
 * holds, in one statement whose answer nobody reads (sent ahead on a pipelined transaction): the rows whose ids the
 * session does not have yet are numbered after its `message_count`, in their order, and the count is raised by as many,
 * as `appendMessages` numbers them after its lookups. An unknown session refuses by error (division by zero) →
 * SessionNotFoundError.
 *
 * @example
 * await appendAheadNumbered(connection, tables, 's1', prepareMessagesForAppend(messages, new Set(), 0));
 */
export async function appendAheadNumbered(connection: SqlConnection, tables: StoreTables, sessionId: string, rows: readonly StoredMessage[]): Promise<void> {
  const text = `WITH session AS (SELECT message_count FROM ${tables.sessions} WHERE session_id = $1),
     fresh AS (
       SELECT record.*, row_number() OVER (ORDER BY record.sequence) AS position
       FROM jsonb_to_recordset($2::jsonb) AS record(sequence integer, message_id text, message text, created_at bigint)
       WHERE NOT EXISTS (
         SELECT 1 FROM ${tables.messages} AS stored WHERE ${storedMessageIs('stored', 'record.message_id')})),
     inserted AS (
       INSERT INTO ${tables.messages} (session_id, sequence, message_id, message, created_at)
       SELECT $1, session.message_count + fresh.position, fresh.message_id, fresh.message, fresh.created_at
       FROM session, fresh
       RETURNING 1),
     counted AS (
       UPDATE ${tables.sessions} SET message_count = message_count + (SELECT count(*) FROM inserted)
       WHERE session_id = $1 AND EXISTS (SELECT 1 FROM inserted)
       RETURNING 1)
     SELECT 1 / (SELECT count(*)::integer FROM session)`;
  const refused = (error: unknown): unknown => (isRefusedByError(error) ? new SessionNotFoundError(sessionId) : error);
  await writeAhead(connection, text, [sessionId, toJsonText(messageRecords(rows), 'messages')], refused);
}

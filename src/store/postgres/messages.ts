import { canSendAhead, writeAhead } from '../../database/send-ahead.js';
import { appendAheadNumbered, messageRecords, storedMessageIs } from './messages-ahead.js';
import { SessionNotFoundError } from '../../errors/index.js';
import type { Message, StoredMessage } from '../../types/message.js';
import type { GetMessagesOptions, GetMessagesResult } from '../../types/session.js';
import { toJsonText } from '../../database/json.js';
import { messageIdsOf, prepareMessagesForAppend, withMessageIds } from '../message-append.js';
import { assertIdentifier, assertNonNegativeInteger } from '../validation.js';
import type { PostgresContext, SqlConnection } from './database.js';
import { lockMessageCount } from './session-lock.js';
import type { StoreTables } from './tables.js';
import type { StartWriteOptions } from '../step-records.js';

/**
 * Inside a transaction that holds the session lock: the stored messages `messages` would add (ids that
 * already exist skipped), found with one indexed lookup whatever the history length.
 *
 * @example
 * const rows = await planPostgresAppend(connection, tables, 's1', messages, messageCount);
 */
export async function planPostgresAppend(
  connection: SqlConnection,
  tables: StoreTables,
  sessionId: string,
  messages: readonly Message[],
  messageCount: number,
): Promise<StoredMessage[]> {
  return prepareMessagesForAppend(messages, await selectExistingMessageIds(connection, tables, sessionId, messages), messageCount);
}

/**
 * The ids among `messages` that the session already has (a retried append's), one statement (none for no ids).
 *
 * @example
 * const existing = await selectExistingMessageIds(connection, tables, 's1', messages);
 */
export async function selectExistingMessageIds(
  connection: SqlConnection,
  tables: StoreTables,
  sessionId: string,
  messages: readonly Message[],
): Promise<Set<string>> {
  const ids = messageIdsOf(messages);
  if (ids.length === 0) return new Set<string>();
  const result = await connection.query<{ message_id: string }>(existingIdsSql(tables), [sessionId, ids]);
  return new Set(result.rows.map((row) => row.message_id));
}

/**
 * The ids among `$2` (text[]) that session `$1` already has: through the key of the hash index behind the ids'
 * uniqueness (migration 010), one probe per id.
 */
function existingIdsSql(tables: StoreTables): string {
  return `SELECT stored.message_id FROM unnest($2::text[]) AS wanted(id)
     JOIN ${tables.messages} AS stored ON ${storedMessageIs('stored', 'wanted.id')}`;
}

/**
 * Insert prepared messages with one statement (a JSON array unpacked by jsonb_to_recordset; see {@link messageRecords}).
 *
 * @example
 * await insertPostgresMessages(connection, tables, 's1', rows);
 */
export async function insertPostgresMessages(connection: SqlConnection, tables: StoreTables, sessionId: string, rows: readonly StoredMessage[]): Promise<void> {
  if (rows.length === 0) return;
  const records = messageRecords(rows);
  await writeAhead(connection, insertRecordsSql(tables), [sessionId, toJsonText(records, 'messages')]);
}

/** The insert of `$2`'s message records (see {@link messageRecords}) into session `$1`. */
function insertRecordsSql(tables: StoreTables): string {
  return `INSERT INTO ${tables.messages} (session_id, sequence, message_id, message, created_at)
     SELECT $1, record.sequence, record.message_id, record.message, record.created_at
     FROM jsonb_to_recordset($2::jsonb) AS record(sequence integer, message_id text, message text, created_at bigint)`;
}

/**
 * `appendMessages`: lock, look up existing ids, insert with message_count raised — three statements per call (one for
 * a session the caller's transaction created, `sessionCreatedHere`; one sent ahead for a session it holds whose total
 * nobody reads, `sessionLocked` and `totalUnread` on a pipelined transaction: then it resolves with `NaN`).
 * Retry-safe: ids are assigned before the first attempt, and appends are idempotent by id.
 *
 * @example
 * const total = await appendPostgresMessages(context, 's1', [{ role: 'user', content: 'Hi' }]);
 */
export async function appendPostgresMessages(
  { database, tables }: PostgresContext,
  sessionId: string,
  messages: Message[],
  options: StartWriteOptions = {},
): Promise<number> {
  assertIdentifier(sessionId, 'sessionId');
  const stable = withMessageIds(messages);
  return database.transaction('append messages', async (connection) => {
    // Nobody reads the total: numbered in SQL and sent ahead where the connection takes it.
    if (options.sessionLocked === true && options.sessionCreatedHere !== true && options.totalUnread === true && canSendAhead(connection)) {
      await appendAheadNumbered(connection, tables, sessionId, prepareMessagesForAppend(stable, new Set(), 0));
      return Number.NaN;
    }
    // A session this transaction created has no message yet; one whose row it holds needs no lock of its own.
    const { messageCount, rows } =
      options.sessionCreatedHere === true
        ? { messageCount: 0, rows: prepareMessagesForAppend(stable, new Set(), 0) }
        : options.sessionLocked === true
          ? await planLockedAppend(connection, tables, sessionId, stable)
          : await planAppend(connection, tables, sessionId, stable);
    if (rows.length === 0) return messageCount;
    const total = messageCount + rows.length;
    await insertCountedMessages(connection, tables, sessionId, rows, total);
    return total;
  });
}

/** Insert prepared messages and set the session's message count to `total`, in one statement (sent ahead where it can be). */
async function insertCountedMessages(connection: SqlConnection, tables: StoreTables, sessionId: string, rows: readonly StoredMessage[], total: number) {
  await writeAhead(
    connection,
    `WITH inserted AS (${insertRecordsSql(tables)})
     UPDATE ${tables.sessions} SET message_count = $3 WHERE session_id = $1`,
    [sessionId, toJsonText(messageRecords(rows), 'messages'), total],
  );
}

/** Lock the session row, then plan the append after what it holds (two statements). */
async function planAppend(connection: SqlConnection, tables: StoreTables, sessionId: string, messages: readonly Message[]) {
  const messageCount = await lockMessageCount(connection, tables, sessionId);
  return { messageCount, rows: await planPostgresAppend(connection, tables, sessionId, messages, messageCount) };
}

/**
 * Plan the append of a session whose row the caller's transaction holds: its message count and the ids it already has
 * in one statement (no other transaction can append meanwhile).
 */
async function planLockedAppend(connection: SqlConnection, tables: StoreTables, sessionId: string, messages: readonly Message[]) {
  const result = await connection.query<{ message_count: number; existing: string[] }>(
    `SELECT session.message_count, ARRAY(${existingIdsSql(tables)}) AS existing
     FROM ${tables.sessions} AS session WHERE session.session_id = $1`,
    [sessionId, messageIdsOf(messages)],
  );
  const row = result.rows[0];
  if (row === undefined) throw new SessionNotFoundError(sessionId);
  return { messageCount: row.message_count, rows: prepareMessagesForAppend(messages, new Set(row.existing), row.message_count) };
}

/**
 * `getMessages`: one statement returning the page and the total from the same snapshot.
 *
 * @example
 * const { messages, total, hasMore } = await getPostgresMessages(context, 's1', { offset: 0, limit: 50 });
 */
export async function getPostgresMessages(
  { database, tables }: PostgresContext,
  sessionId: string,
  options: GetMessagesOptions = {},
): Promise<GetMessagesResult> {
  assertIdentifier(sessionId, 'sessionId');
  assertNonNegativeInteger(options.offset, 'offset', { optional: true });
  assertNonNegativeInteger(options.limit, 'limit', { optional: true });
  const offset = options.offset ?? 0;
  const rows = await database.run('read messages', async (connection) => {
    const result = await connection.query<{ total: number; sequence: number | null; message_id: string | null; message: string | null }>(
      `SELECT session.message_count AS total, page.sequence, page.message_id, page.message
       FROM ${tables.sessions} AS session
       LEFT JOIN LATERAL (
         SELECT sequence, message_id, message FROM ${tables.messages}
         WHERE session_id = session.session_id ORDER BY sequence OFFSET $2 LIMIT $3
       ) AS page ON true
       WHERE session.session_id = $1
       ORDER BY page.sequence`,
      [sessionId, offset, options.limit ?? null],
    );
    return result.rows;
  });
  const total = rows[0]?.total ?? 0;
  const messages = rows.flatMap((row) =>
    row.message === null || row.message_id === null || row.sequence === null
      ? []
      : [{ ...(JSON.parse(row.message) as Message), id: row.message_id, sequence: row.sequence }],
  );
  return { messages, total, hasMore: offset + messages.length < total };
}

/**
 * `getMessageCount` (0 when the session does not exist).
 *
 * @example
 * const count = await getPostgresMessageCount(context, 's1');
 */
export async function getPostgresMessageCount({ database, tables }: PostgresContext, sessionId: string): Promise<number> {
  assertIdentifier(sessionId, 'sessionId');
  return database.run('count messages', async (connection) => {
    const result = await connection.query<{ message_count: number }>(`SELECT message_count FROM ${tables.sessions} WHERE session_id = $1`, [sessionId]);
    return result.rows[0]?.message_count ?? 0;
  });
}

/**
 * `truncateMessages`: keep the first `count` messages (rows past it are deleted, none rewritten).
 *
 * @example
 * await truncatePostgresMessages(context, 's1', 4);
 */
export async function truncatePostgresMessages({ database, tables }: PostgresContext, sessionId: string, count: number): Promise<void> {
  assertIdentifier(sessionId, 'sessionId');
  assertNonNegativeInteger(count, 'count');
  await database.transaction('truncate messages', async (connection) => {
    await lockMessageCount(connection, tables, sessionId);
    await connection.query(`DELETE FROM ${tables.messages} WHERE session_id = $1 AND sequence > $2`, [sessionId, count]);
    await connection.query(`UPDATE ${tables.sessions} SET message_count = LEAST(message_count, $2) WHERE session_id = $1`, [sessionId, count]);
  });
}

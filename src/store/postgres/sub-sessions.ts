import { InvalidArgumentError, SessionNotFoundError } from '../../errors/index.js';
import type { SubSessionRef } from '../../types/session.js';
import { toJsonText } from '../../database/json.js';
import { applySubSessionRefPatch, prepareSubSessionRef, type SubSessionRefPatch } from '../record-updates.js';
import { assertIdentifier } from '../validation.js';
import { requireSessionReference, toNumber, type PostgresContext, type SqlConnection } from './database.js';
import type { StoreTables } from './tables.js';

/** A row of `__agents_sub_session_refs`. */
interface SubSessionRefRow {
  sub_session_id: string;
  agent_type: string;
  parent_tool_call_id: string;
  mode: SubSessionRef['mode'];
  name: string | null;
  status: SubSessionRef['status'];
  completion_delivered: boolean | null;
  output: unknown;
  error: string | null;
  created_at: string | number;
  updated_at: string | number | null;
  remote_stream_id: string | null;
  remote_last_sequence: string | number | null;
}

const COLUMNS =
  'sub_session_id, agent_type, parent_tool_call_id, mode, name, status, completion_delivered, output, error, created_at, updated_at, remote_stream_id, remote_last_sequence';
const RECORD_TYPE = `sub_session_id text, agent_type text, parent_tool_call_id text, mode text, name text, status text,
  completion_delivered boolean, output jsonb, error text, created_at bigint, updated_at bigint, remote_stream_id text, remote_last_sequence bigint`;

function refFromRow(row: SubSessionRefRow): SubSessionRef {
  const ref: SubSessionRef = {
    subSessionId: row.sub_session_id,
    agentType: row.agent_type,
    parentToolCallId: row.parent_tool_call_id,
    mode: row.mode,
    status: row.status,
    startedAt: toNumber(row.created_at) ?? 0,
  };
  if (row.name !== null) ref.name = row.name;
  if (row.completion_delivered !== null) ref.completionDelivered = row.completion_delivered;
  if (row.output !== null) ref.output = row.output;
  if (row.error !== null) ref.error = row.error;
  if (row.updated_at !== null) ref.completedAt = toNumber(row.updated_at);
  if (row.remote_stream_id !== null) ref.remote = { streamId: row.remote_stream_id, lastSequence: toNumber(row.remote_last_sequence) ?? 0 };
  return ref;
}

function refToRecord(ref: SubSessionRef): Record<string, unknown> {
  return {
    sub_session_id: ref.subSessionId,
    agent_type: ref.agentType,
    parent_tool_call_id: ref.parentToolCallId,
    mode: ref.mode,
    name: ref.name ?? null,
    status: ref.status,
    completion_delivered: ref.completionDelivered ?? null,
    output: ref.output ?? null,
    error: ref.error ?? null,
    created_at: ref.startedAt,
    updated_at: ref.completedAt ?? null,
    remote_stream_id: ref.remote?.streamId ?? null,
    remote_last_sequence: ref.remote === undefined ? null : ref.remote.lastSequence,
  };
}

async function writeRefs(connection: SqlConnection, tables: StoreTables, sessionId: string, refs: SubSessionRef[], upsert: boolean): Promise<void> {
  const conflict = upsert
    ? `DO UPDATE SET (${COLUMNS}) = (EXCLUDED.${COLUMNS.split(', ').join(', EXCLUDED.')})`
    : 'DO NOTHING';
  await connection.query(
    `INSERT INTO ${tables.subSessionRefs} (session_id, ${COLUMNS})
     SELECT $1, ${COLUMNS} FROM jsonb_to_recordset($2::jsonb) AS record(${RECORD_TYPE})
     ON CONFLICT (session_id, sub_session_id) ${conflict}`,
    [sessionId, toJsonText(refs.map(refToRecord), 'subSessionRefs')],
  );
}

/**
 * `addSubSessionRefs`: one multi-row INSERT … ON CONFLICT DO NOTHING (existing refs are kept).
 *
 * @example
 * await addPostgresSubSessionRefs(context, 'parent', [ref]);
 */
export async function addPostgresSubSessionRefs({ database, tables }: PostgresContext, sessionId: string, refs: SubSessionRef[]): Promise<void> {
  assertIdentifier(sessionId, 'sessionId');
  const prepared = refs.map(prepareSubSessionRef);
  if (prepared.length === 0) return;
  await database.run('add sub-session refs', (connection) =>
    requireSessionReference(sessionId, () => writeRefs(connection, tables, sessionId, prepared, false)),
  );
}

/**
 * `updateSubSessionRef`: read the ref under a row lock, apply the patch, write it back.
 *
 * @example
 * await updatePostgresSubSessionRef(context, 'parent', 'child', { status: 'completed', completionDelivered: true });
 */
export async function updatePostgresSubSessionRef(
  { database, tables }: PostgresContext,
  sessionId: string,
  subSessionId: string,
  patch: SubSessionRefPatch,
): Promise<void> {
  assertIdentifier(sessionId, 'sessionId');
  assertIdentifier(subSessionId, 'subSessionId');
  await database.transaction('update a sub-session ref', async (connection) => {
    const result = await connection.query<SubSessionRefRow>(
      `SELECT ${COLUMNS} FROM ${tables.subSessionRefs} WHERE session_id = $1 AND sub_session_id = $2 FOR UPDATE`,
      [sessionId, subSessionId],
    );
    const row = result.rows[0];
    if (row === undefined) {
      const session = await connection.query(`SELECT 1 FROM ${tables.sessions} WHERE session_id = $1`, [sessionId]);
      if (session.rowCount !== 1) throw new SessionNotFoundError(sessionId);
      throw new InvalidArgumentError('subSessionId does not name a sub-session ref of this session.', { field: 'subSessionId' });
    }
    await writeRefs(connection, tables, sessionId, [applySubSessionRefPatch(refFromRow(row), patch, Date.now())], true);
  });
}

/**
 * `getSubSessionRefs`, in insertion order.
 *
 * @example
 * const refs = await getPostgresSubSessionRefs(context, 'parent');
 */
export async function getPostgresSubSessionRefs({ database, tables }: PostgresContext, sessionId: string): Promise<SubSessionRef[]> {
  assertIdentifier(sessionId, 'sessionId');
  const rows = await database.run('read sub-session refs', async (connection) => {
    const result = await connection.query<SubSessionRefRow>(
      `SELECT ${COLUMNS} FROM ${tables.subSessionRefs} WHERE session_id = $1 ORDER BY position`,
      [sessionId],
    );
    return result.rows;
  });
  return rows.map(refFromRow);
}

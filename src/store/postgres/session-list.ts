import { cursorAfter, type ResolvedSessionListQuery, type SessionListPage, type SessionSummary } from '../session-listing.js';
import type { PostgresContext } from './database.js';

/** SQL: the session (alias `s`) holds a human call no one has answered (`openCallsOf` in open-calls.ts). */
export const OPEN_CALL_SQL = `(jsonb_typeof(s.state->'pendingClientToolCalls') = 'object'
  AND EXISTS (SELECT 1 FROM jsonb_each(s.state->'pendingClientToolCalls') AS call(id, entry) WHERE NOT (call.entry ? 'submittedAt')))`;

/** SQL: the session (alias `s`) is active and holds a human call no one has answered. */
export const AWAITING_HUMAN_SQL = `(s.status = 'active' AND ${OPEN_CALL_SQL})`;

interface SummaryRow {
  session_id: string;
  agent_type: string;
  status: SessionSummary['status'];
  mode: SessionSummary['mode'] | null;
  user_id: string | null;
  parent_session_id: string | null;
  root_session_id: string | null;
  failure_reason: string | null;
  step_count: number;
  created_at: string;
  updated_at: string;
  awaiting_human: boolean;
}

/**
 * `listSessions`: one page of session rows (most recently written first, keyset-paged) and the count of all matches.
 *
 * @example
 * const page = await listPostgresSessions(context, resolveSessionListQuery({ status: ['active'] }));
 */
export async function listPostgresSessions({ database, tables }: PostgresContext, query: ResolvedSessionListQuery): Promise<SessionListPage> {
  const parameters: unknown[] = [];
  const bind = (value: unknown): string => `$${parameters.push(value)}`;
  const where: string[] = [];
  if (query.agentType !== undefined) where.push(`s.agent_type = ${bind(query.agentType)}`);
  if (query.status !== undefined) where.push(`s.status = ANY(${bind(query.status)}::text[])`);
  if (query.awaitingHuman !== undefined) where.push(query.awaitingHuman ? AWAITING_HUMAN_SQL : `NOT ${AWAITING_HUMAN_SQL}`);
  if (query.updatedSince !== undefined) where.push(`s.updated_at >= ${bind(query.updatedSince)}`);
  if (query.userId !== undefined) where.push(query.userId === null ? 's.user_id IS NULL' : `s.user_id = ${bind(query.userId)}`);
  if (query.rootsOnly) where.push('s.parent_session_id IS NULL');
  const filter = where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;
  const countParameters = [...parameters];
  const after = query.after === undefined ? '' : `${filter === '' ? 'WHERE' : ' AND'} (s.updated_at, s.session_id) < (${bind(query.after.updatedAt)}, ${bind(query.after.sessionId)})`;
  const limit = bind(query.limit + 1);
  return database.run('list sessions', async (connection) => {
    const [rows, count] = await Promise.all([
      connection.query<SummaryRow>(
        `SELECT s.session_id, s.agent_type, s.status, s.mode, s.user_id, s.parent_session_id, s.root_session_id, s.failure_reason,
                s.step_count, s.created_at, s.updated_at, ${AWAITING_HUMAN_SQL} AS awaiting_human
         FROM ${tables.sessions} AS s ${filter}${after}
         ORDER BY s.updated_at DESC, s.session_id DESC LIMIT ${limit}`,
        parameters,
      ),
      connection.query<{ total: number }>(`SELECT count(*)::int AS total FROM ${tables.sessions} AS s ${filter}`, countParameters),
    ]);
    const sessions = rows.rows.slice(0, query.limit).map(summaryFromRow);
    const last = sessions.at(-1);
    const more = rows.rows.length > query.limit && last !== undefined;
    return { sessions, total: count.rows[0]?.total ?? 0, ...(more ? { nextCursor: cursorAfter(last) } : {}) };
  });
}

function summaryFromRow(row: SummaryRow): SessionSummary {
  return {
    sessionId: row.session_id,
    agentType: row.agent_type,
    status: row.status,
    ...(row.mode === null ? {} : { mode: row.mode }),
    ...(row.user_id === null ? {} : { userId: row.user_id }),
    ...(row.parent_session_id === null ? {} : { parentSessionId: row.parent_session_id }),
    ...(row.root_session_id === null ? {} : { rootSessionId: row.root_session_id }),
    ...(row.failure_reason === null ? {} : { failureReason: row.failure_reason }),
    stepCount: row.step_count,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    awaitingHuman: row.awaiting_human,
  };
}

import { InvalidArgumentError } from '../errors/index.js';
import { openCallsOf } from './open-calls.js';
import type { DBOSAgentMode, SessionState, SessionStatus } from '../types/session.js';

/**
 * What `listSessions` selects (every field optional; all given fields must match).
 *
 * @example
 * const query: SessionListQuery = { agentType: 'assistant', status: ['active'], awaitingHuman: true, limit: 20 };
 */
export interface SessionListQuery {
  agentType?: string;
  status?: readonly SessionStatus[];
  /** Only `active` sessions holding a client tool call or approval no one has answered (or only the others). */
  awaitingHuman?: boolean;
  /** Last written at or after this time (epoch ms). */
  updatedSince?: number;
  /** The sessions of one user (a principal's); `null`: sessions created without one. Absent: everyone's. */
  userId?: string | null;
  /** Top-level sessions only (no sub-agent or companion sessions). Default true. */
  rootsOnly?: boolean;
  /** Page size, 1–500. Default 50. */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

/**
 * One session as a list shows it (no conversation, no custom state).
 *
 * @example
 * const row: SessionSummary = { sessionId: 's1', agentType: 'assistant', status: 'active', stepCount: 2, createdAt: 1, updatedAt: 2, awaitingHuman: false };
 */
export interface SessionSummary {
  sessionId: string;
  agentType: string;
  status: SessionStatus;
  mode?: DBOSAgentMode;
  userId?: string;
  parentSessionId?: string;
  rootSessionId?: string;
  failureReason?: string;
  stepCount: number;
  createdAt: number;
  updatedAt: number;
  awaitingHuman: boolean;
}

/**
 * A page of sessions, most recently written first, and how many match in all.
 *
 * @example
 * const { sessions, nextCursor, total } = await store.listSessions!({ limit: 20 });
 */
export interface SessionListPage {
  sessions: SessionSummary[];
  /** Pass as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
  total: number;
}

const STATUSES: ReadonlySet<string> = new Set(['active', 'completed', 'failed', 'interrupted', 'paused']);
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

/** A validated query, with its defaults and decoded cursor. */
export interface ResolvedSessionListQuery extends Omit<SessionListQuery, 'limit' | 'cursor' | 'rootsOnly'> {
  limit: number;
  rootsOnly: boolean;
  after?: { updatedAt: number; sessionId: string };
}

/**
 * Check a `listSessions` query and apply its defaults.
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT` for an unknown status, a limit outside 1–500, a malformed cursor.
 * @example
 * resolveSessionListQuery({ limit: 10 }); // { limit: 10, rootsOnly: true }
 */
export function resolveSessionListQuery(query: SessionListQuery = {}): ResolvedSessionListQuery {
  if (typeof query !== 'object' || query === null) throw new InvalidArgumentError('listSessions takes a query object.', { field: 'query' });
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw new InvalidArgumentError(`limit must be an integer from 1 to ${MAX_LIMIT}.`, { field: 'limit' });
  if (query.status !== undefined && (!Array.isArray(query.status) || query.status.some((status) => !STATUSES.has(status)))) {
    throw new InvalidArgumentError('status must be a list of session statuses.', { field: 'status' });
  }
  if (query.updatedSince !== undefined && !Number.isFinite(query.updatedSince))
    throw new InvalidArgumentError('updatedSince must be epoch milliseconds.', { field: 'updatedSince' });
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const { cursor: _cursor, ...rest } = query;
  return { ...rest, limit, rootsOnly: query.rootsOnly ?? true, ...(after === undefined ? {} : { after }) };
}

/** The cursor after `last`: where the next page starts (`updatedAt` descending, then `sessionId` descending). */
export function cursorAfter(last: Pick<SessionSummary, 'updatedAt' | 'sessionId'>): string {
  return Buffer.from(JSON.stringify([last.updatedAt, last.sessionId]), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): { updatedAt: number; sessionId: string } {
  try {
    const [updatedAt, sessionId] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof updatedAt === 'number' && typeof sessionId === 'string') return { updatedAt, sessionId };
  } catch {
    // the same refusal below
  }
  throw new InvalidArgumentError('cursor is not a cursor this store returned.', { field: 'cursor' });
}

/** Whether a session holds a human call no one has answered (an `active` session only). */
export function awaitsHuman(state: Pick<SessionState, 'status' | 'pendingClientToolCalls'>): boolean {
  return state.status === 'active' && openCallsOf(state).length > 0;
}

/** A session's list row. */
export function summaryOf(state: SessionState): SessionSummary {
  return {
    sessionId: state.sessionId,
    agentType: state.agentType,
    status: state.status,
    ...(state.mode === undefined ? {} : { mode: state.mode }),
    ...(state.userId === undefined ? {} : { userId: state.userId }),
    ...(state.parentSessionId === undefined ? {} : { parentSessionId: state.parentSessionId }),
    ...(state.rootSessionId === undefined ? {} : { rootSessionId: state.rootSessionId }),
    ...(state.failureReason === undefined ? {} : { failureReason: state.failureReason }),
    stepCount: state.stepCount,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    awaitingHuman: awaitsHuman(state),
  };
}

/**
 * `listSessions` over sessions held in memory (the in-memory store): the same filters, order and paging as Postgres.
 *
 * @example
 * const page = listMemorySessions(states, resolveSessionListQuery({ limit: 10 }));
 */
export function listMemorySessions(states: readonly SessionState[], query: ResolvedSessionListQuery): SessionListPage {
  const matching = states
    .filter((state) => query.agentType === undefined || state.agentType === query.agentType)
    .filter((state) => query.status === undefined || query.status.includes(state.status))
    .filter((state) => query.awaitingHuman === undefined || awaitsHuman(state) === query.awaitingHuman)
    .filter((state) => query.updatedSince === undefined || state.updatedAt >= query.updatedSince)
    .filter((state) => query.userId === undefined || (state.userId ?? null) === query.userId)
    .filter((state) => !query.rootsOnly || state.parentSessionId === undefined)
    .sort((left, right) => right.updatedAt - left.updatedAt || (left.sessionId < right.sessionId ? 1 : left.sessionId > right.sessionId ? -1 : 0));
  const { after } = query;
  const rest =
    after === undefined
      ? matching
      : matching.filter((state) => state.updatedAt < after.updatedAt || (state.updatedAt === after.updatedAt && state.sessionId < after.sessionId));
  const sessions = rest.slice(0, query.limit).map(summaryOf);
  const last = sessions.at(-1);
  return { sessions, total: matching.length, ...(rest.length > query.limit && last !== undefined ? { nextCursor: cursorAfter(last) } : {}) };
}

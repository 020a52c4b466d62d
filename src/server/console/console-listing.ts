import type { SessionListQuery, SessionSummary } from '../../store/session-listing.js';
import type { SessionStatus } from '../../types/session.js';
import { AgentServerHttpError } from '../server-errors.js';
import type { AgentServerPrincipal } from '../server-options.js';
import type { ServerContext } from '../server-context.js';
import { CONSOLE_LIMITS, type ConsoleSessionListResponse, type ConsoleSessionRow } from './console-api.js';
import type { consoleSessionListQuerySchema } from './console-schemas.js';
import type { z } from 'zod';

const STATUSES: readonly SessionStatus[] = ['active', 'completed', 'failed', 'interrupted', 'paused'];

/**
 * `GET {path}/api/sessions`: a page of the principal's top-level sessions (`listSessions` with `userId` forced to the
 * principal's id, the anonymous principal's `null`, and `rootsOnly`), and counts over all of them: awaiting a human,
 * and by status.
 *
 * @throws AgentServerHttpError 501 `SESSION_LISTING_UNSUPPORTED` when the state store has no `listSessions`.
 * @throws InvalidArgumentError `INVALID_ARGUMENT` (400) for a cursor the store did not return.
 * @example
 * const page = await consoleSessionList(context, { id: 'alice' }, { status: ['active'], limit: 20 });
 */
export async function consoleSessionList(
  context: ServerContext,
  principal: AgentServerPrincipal | null,
  query: z.infer<typeof consoleSessionListQuerySchema>,
): Promise<ConsoleSessionListResponse> {
  const { stateStore } = context.options;
  if (stateStore.listSessions === undefined) {
    throw new AgentServerHttpError(501, 'SESSION_LISTING_UNSUPPORTED', "This server's state store cannot list sessions: use a store with listSessions (PostgresStateStore).");
  }
  const listSessions = stateStore.listSessions.bind(stateStore);
  const list = (selection: SessionListQuery) => listSessions({ ...selection, userId: principal?.id ?? null, rootsOnly: true });
  const [page, awaitingHuman, ...byStatus] = await Promise.all([
    list({
      ...(query.agent === undefined ? {} : { agentType: query.agent }),
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.awaitingHuman === undefined ? {} : { awaitingHuman: query.awaitingHuman }),
      ...(query.updatedSince === undefined ? {} : { updatedSince: query.updatedSince }),
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
      limit: query.limit ?? CONSOLE_LIMITS.defaultPage,
    }),
    list({ awaitingHuman: true, limit: 1 }),
    ...STATUSES.map((status) => list({ status: [status], limit: 1 })),
  ]);
  return {
    sessions: page.sessions.map(rowOf),
    nextCursor: page.nextCursor ?? null,
    total: page.total,
    counts: {
      awaitingHuman: awaitingHuman.total,
      byStatus: Object.fromEntries(STATUSES.map((status, index) => [status, byStatus[index]?.total ?? 0])) as Record<SessionStatus, number>,
    },
  };
}

function rowOf(summary: SessionSummary): ConsoleSessionRow {
  return {
    sessionId: summary.sessionId,
    agentType: summary.agentType,
    status: summary.status,
    ...(summary.mode === undefined ? {} : { mode: summary.mode }),
    ...(summary.failureReason === undefined ? {} : { failureReason: summary.failureReason }),
    stepCount: summary.stepCount,
    createdAt: summary.createdAt,
    updatedAt: summary.updatedAt,
    awaitingHuman: summary.awaitingHuman,
  };
}

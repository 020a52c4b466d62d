import { Hono } from 'hono';
import { parseQuery } from '../http-errors.js';
import type { AgentServerEnvironment, ServerContext } from '../server-context.js';
import { sessionNotFound } from '../server-errors.js';
import { consoleSession } from './console-access.js';
import { CONSOLE_ACTIONS } from './console-actions.js';
import { consoleAgents } from './console-agents.js';
import type { ConsoleAction, ConsoleActionResponse } from './console-api.js';
import { consoleSessionList } from './console-listing.js';
import { consoleSessionQuerySchema, consoleSessionListQuerySchema } from './console-schemas.js';
import { consoleSessionDetail } from './console-session.js';
import { readSessionState, streamRootOf } from './console-state.js';
import { lastEventId, sessionSSE } from '../sse-route.js';

/**
 * @internal The console's JSON API (see `console-api.ts`), to mount at the console's path: `GET /api/agents`,
 * `GET /api/sessions`, `GET /api/sessions/:sessionId`, `GET /api/sessions/:sessionId/stream` (server-sent events) and
 * `POST /api/sessions/:sessionId/{action}`.
 *
 * @example
 * app.route('/console', consoleRoutes(context));
 */
export function consoleRoutes(context: ServerContext): Hono<AgentServerEnvironment> {
  const app = new Hono<AgentServerEnvironment>();

  app.get('/api/agents', (c) => c.json(consoleAgents(context.agents, context.options.chat?.agent.name), 200));

  app.get('/api/sessions', async (c) => {
    const query = parseQuery(c, consoleSessionListQuerySchema);
    return c.json(await consoleSessionList(context, c.get('principal'), query), 200);
  });

  app.get('/api/sessions/:sessionId', async (c) => {
    const access = await consoleSession(context, c.get('principal'), c.req.param('sessionId'));
    const query = parseQuery(c, consoleSessionQuerySchema);
    return c.json(await consoleSessionDetail(context, access, query), 200);
  });

  /** The session's own stream live, from its current run's start (or after `Last-Event-ID`), to its run's end. */
  app.get('/api/sessions/:sessionId/stream', async (c) => {
    const access = await consoleSession(context, c.get('principal'), c.req.param('sessionId'));
    return sessionSSE(c, context, access, lastEventId(c.req.header('last-event-id')));
  });

  for (const action of Object.keys(CONSOLE_ACTIONS) as ConsoleAction[]) {
    app.post(`/api/sessions/:sessionId/${action}`, async (c) => {
      const access = await consoleSession(context, c.get('principal'), c.req.param('sessionId'));
      const { reportOn, ...outcome } = await CONSOLE_ACTIONS[action](context, c, access);
      const session =
        reportOn === undefined ? await readSessionState(context, access.state.sessionId, streamRootOf(access.root)) : await readSessionState(context, reportOn);
      if (session === null) throw sessionNotFound();
      const answer: ConsoleActionResponse = { action, sessionId: access.state.sessionId, session, ...outcome };
      return c.json(answer, action === 'branch' ? 201 : 200);
    });
  }

  return app;
}

/**
 * @internal The console's default path.
 *
 * @example
 * consolePath(undefined) === DEFAULT_CONSOLE_PATH; // true
 */
export const DEFAULT_CONSOLE_PATH = '/console';
const CONSOLE_PATH = /^(\/[A-Za-z0-9._~-]+)+$/;

/**
 * @internal The console's path from its options: `/console` by default; a path of `/`-separated segments, without a
 * trailing `/`. `null` for any other value.
 *
 * @example
 * consolePath('/ops/console'); // '/ops/console'
 * consolePath('/console/'); // null
 */
export function consolePath(path: string | undefined): string | null {
  const value = path ?? DEFAULT_CONSOLE_PATH;
  return CONSOLE_PATH.test(value) ? value : null;
}

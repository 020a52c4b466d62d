import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { noopLogger } from '../hooks/logger.js';
import { InvalidArgumentError } from '../errors/index.js';
import { chatRoutes } from './chat-routes.js';
import { consolePath, consoleRoutes } from './console/console-routes.js';
import { consoleAssetsDirectory, consoleStatic } from './console/console-static.js';
import { executorRoutes } from './executor-routes.js';
import { errorResponse } from './http-errors.js';
import { AgentServerAuthConfigurationError, AgentServerHttpError } from './server-errors.js';
import { ServerContext, type AgentServerEnvironment } from './server-context.js';
import type { AgentServerOptions, AgentServerPrincipal } from './server-options.js';

const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/**
 * Agents over HTTP on web-standard `Request`/`Response`: one `fetch(request)` handler (a Hono router inside)
 * that mounts in Hono, Next.js route handlers, Bun/Deno, or Node through `createHttpAdapter` /
 * `createExpressAdapter`.
 *
 * Executor routes: `POST /start`, `POST /resume`, `POST /retry`, `GET /sse` (resumable with `Last-Event-ID` or
 * `fromSequence`), `GET /status` (the whole tree's open human calls), `POST /interrupt`, `POST /abort`,
 * `POST /submit-tool-result`, `GET /workspace` (404 `RUNTIME_NO_WORKSPACE_SUPPORT`). With `chat`: the AI SDK
 * chat routes `POST /chat`, `GET /chat/{sessionId}/stream`, `GET /chat/{sessionId}/messages` (the history as
 * `UIMessage`s), `POST /chat/{sessionId}/submit-tool-result`, `/interrupt` and `/abort`. With `console`: the
 * console's JSON API under `{console.path}/api` (default
 * `/console/api`; see `console-api.ts`) and its web UI at `{console.path}/` (the built `dist/console/`, loaded without
 * authentication: it holds no data). Interrupt and abort are durable: any instance serving the same database works.
 * A valid W3C `traceparent` header on a request that starts a session's run (`POST /start`, `POST /chat`) puts the
 * run in the caller's trace (a remote sub-agent's run under the caller's tool span); a malformed one is ignored.
 *
 * Fails closed: the authenticated principal is bound to the sessions it creates (and their sub-agents' and
 * companions'); every route answers 404 for another principal's session. Bodies are validated (400 `INVALID_REQUEST`, nothing written) and limited
 * (413 `PAYLOAD_TOO_LARGE`). Errors are `{ error: { code, message } }` and never echo payloads.
 *
 * @throws AgentServerAuthConfigurationError `SERVER_AUTH_NOT_CONFIGURED` without `authenticate` and without
 *   `allowUnauthenticated: true`.
 * @throws InvalidArgumentError `INVALID_ARGUMENT` for a malformed `console.path`.
 * @example
 * const server = new AgentServer({ executor, stateStore, streamManager, agents: [assistant], chat: { agent: assistant }, authenticate });
 * export const GET = (request: Request) => server.fetch(request); // e.g. a Next.js route handler
 */
export class AgentServer {
  private readonly app: Hono<AgentServerEnvironment>;

  constructor(options: AgentServerOptions) {
    if (options.authenticate === undefined && options.allowUnauthenticated !== true) throw new AgentServerAuthConfigurationError();
    const consoleAt = options.console === undefined ? null : consolePath(options.console.path);
    if (options.console !== undefined && consoleAt === null) throw new InvalidArgumentError('console.path must be / followed by path segments of [A-Za-z0-9._~-], without a trailing /.', { field: 'console.path' });
    const logger = options.logger ?? noopLogger;
    const context = new ServerContext(options, logger);
    const app = new Hono<AgentServerEnvironment>();
    const routes = options.basePath === undefined ? app : app.basePath(options.basePath);
    app.onError((error) => errorResponse(error, logger));
    app.notFound(() => Response.json({ error: { code: 'NOT_FOUND', message: 'No such route.' } }, { status: 404 }));
    // The console's page and assets hold no data: served before authentication (its API calls carry the token).
    if (consoleAt !== null) app.use('*', consoleStatic(`${options.basePath ?? ''}${consoleAt}`, options.basePath ?? '', consoleAssetsDirectory()));
    routes.use('*', async (c, next) => {
      c.set('principal', await authenticate(options, c.req.raw, logger));
      await next();
    });
    routes.use(
      '*',
      bodyLimit({
        maxSize: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
        onError: () => Response.json({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is too large.' } }, { status: 413 }),
      }),
    );
    routes.route('/', executorRoutes(context));
    if (options.chat !== undefined) routes.route('/', chatRoutes(context, options.chat.agent.name));
    if (consoleAt !== null) routes.route(consoleAt, consoleRoutes(context));
    this.app = app;
  }

  /**
   * Answer one request.
   *
   * @example
   * const response = await server.fetch(new Request('http://localhost/status?sessionId=s1', { headers: { authorization: 'Bearer …' } }));
   */
  async fetch(request: Request): Promise<Response> {
    return this.app.fetch(request);
  }
}

/**
 * Create an `AgentServer` (same options and errors as the constructor).
 *
 * @example
 * const server = createAgentServer({ executor, stateStore, streamManager, agents: [assistant], authenticate: verifyBearer });
 * http.createServer(createHttpAdapter(server)).listen(3000);
 */
export function createAgentServer(options: AgentServerOptions): AgentServer {
  return new AgentServer(options);
}

async function authenticate(options: AgentServerOptions, request: Request, logger: typeof noopLogger): Promise<AgentServerPrincipal | null> {
  if (options.authenticate === undefined) return null;
  let principal: AgentServerPrincipal | null;
  try {
    principal = await options.authenticate(request);
  } catch (error) {
    logger.warn('agent_server.authenticate_failed', { name: error instanceof Error ? error.name : typeof error });
    principal = null;
  }
  if (principal !== null && (typeof principal.id !== 'string' || principal.id.length === 0)) principal = null;
  if (principal === null && options.allowUnauthenticated !== true) throw new AgentServerHttpError(401, 'UNAUTHENTICATED', 'Authentication is required.');
  return principal;
}

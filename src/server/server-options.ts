import type { AnyAgentConfig } from '../agent/index.js';
import type { DBOSAgentExecutor } from '../executor/dbos-agent-executor.js';
import type { Logger } from '../hooks/types.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { StreamManager } from '../stream/stream-manager.js';
import type { UsageStore } from '../usage/usage-store.js';

/**
 * Who made a request, as returned by `authenticate`. `id` is bound to every session the principal
 * creates (stored as the session's `userId`); other principals get 404 for those sessions.
 *
 * @example
 * const principal: AgentServerPrincipal = { id: 'user-42' };
 */
export interface AgentServerPrincipal {
  id: string;
}

/**
 * Authenticate a request: a principal, or `null` to answer 401 `UNAUTHENTICATED`. Never log or echo the
 * credentials you read here.
 *
 * @example
 * const authenticate: AgentServerAuthenticate = async (request) => {
 *   const token = request.headers.get('authorization')?.replace(/^Bearer /, '');
 *   return token === undefined ? null : ((await verify(token)) ?? null);
 * };
 */
export type AgentServerAuthenticate = (request: Request) => Promise<AgentServerPrincipal | null> | AgentServerPrincipal | null;

/**
 * Options of `AgentServer` / `createAgentServer`.
 *
 * @example
 * const options: AgentServerOptions = { executor, stateStore, streamManager, agents: [assistant], chat: { agent: assistant }, authenticate };
 */
export interface AgentServerOptions {
  /** The executor that runs the agents. */
  executor: DBOSAgentExecutor;
  /** The executor's state store (sessions are read for status and ownership). */
  stateStore: SessionStateStore;
  /** The executor's stream manager (chunks are read for `/sse` and the chat streams). */
  streamManager: StreamManager;
  /** Agents `/start` may run, by `name`. Register them with the executor's process before `DBOS.launch()`. */
  agents: readonly AnyAgentConfig[];
  /** Enables the chat routes (`/chat…`), which run this agent. It need not be listed in `agents`. */
  chat?: { agent: AnyAgentConfig };
  /** Required unless `allowUnauthenticated` is true. */
  authenticate?: AgentServerAuthenticate;
  /**
   * Serve requests without a principal (every such request acts as the anonymous principal, which sees
   * only sessions created without one). Default false: the constructor throws without `authenticate`.
   */
  allowUnauthenticated?: boolean;
  /** Largest accepted request body in bytes; larger ones get 413 `PAYLOAD_TOO_LARGE`. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Path prefix of every route, e.g. `/agents`. Default none. */
  basePath?: string;
  /** Defaults to a no-op logger. Errors are logged with their code only. */
  logger?: Logger;
  /**
   * Enables the console's JSON API under `{path}/api` (see `console-api.ts`): the principal's sessions, each
   * session's runs, steps, checkpoints, human waits, sub-agent tree and usage, and actions on them. Disabled unless
   * given; `path` defaults to `/console` (relative to `basePath`). Listing needs a state store with `listSessions`.
   */
  console?: AgentServerConsoleOptions;
  /** The executor's usage store: the console shows usage per run, session and tree from it. Default none (no usage). */
  usageStore?: UsageStore;
}

/**
 * Options of the console (`AgentServerOptions.console`).
 *
 * @example
 * const console: AgentServerConsoleOptions = { path: '/admin/console' };
 */
export interface AgentServerConsoleOptions {
  /** Where the console is served: `/` followed by path segments of `[A-Za-z0-9._~-]`, no trailing `/`. Default `/console`. */
  path?: string;
}

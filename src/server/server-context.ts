import type { AnyAgentConfig } from '../agent/index.js';
import type { Logger } from '../hooks/types.js';
import type { SessionState } from '../types/session.js';
import { AgentServerHttpError, sessionNotFound } from './server-errors.js';
import type { AgentServerOptions, AgentServerPrincipal } from './server-options.js';

/** Parent links followed at most to find a root without `rootSessionId`. */
const MAX_PARENT_HOPS = 32;

/** @internal Hono environment of the server's routes: the authenticated principal (null = anonymous). */
export interface AgentServerEnvironment {
  Variables: { principal: AgentServerPrincipal | null };
}

/** @internal What every route needs: the options, agents by name, the logger. */
export class ServerContext {
  readonly agents: ReadonlyMap<string, AnyAgentConfig>;

  constructor(
    readonly options: AgentServerOptions,
    readonly logger: Logger,
  ) {
    const agents = new Map(options.agents.map((agent) => [agent.name, agent] as const));
    if (options.chat !== undefined && !agents.has(options.chat.agent.name)) agents.set(options.chat.agent.name, options.chat.agent);
    this.agents = agents;
  }

  /**
   * The session, when it exists and belongs to `principal` (see {@link ServerContext.ownedTreeSession}). Anything
   * else is the same 404.
   */
  async ownedSession(principal: AgentServerPrincipal | null, sessionId: string): Promise<SessionState> {
    return (await this.ownedTreeSession(principal, sessionId)).state;
  }

  /**
   * The session with the root of its tree, when `principal` owns it: a top-level session is owned when its `userId`
   * is the principal's id (the anonymous principal owns sessions created without one); a sub-agent or companion
   * session (created without a user) belongs to whoever owns its root, never to the anonymous principal for that
   * reason alone. Anything else is the same 404 `SESSION_NOT_FOUND`.
   */
  async ownedTreeSession(principal: AgentServerPrincipal | null, sessionId: string): Promise<{ state: SessionState; root: SessionState }> {
    const state = await this.options.stateStore.loadState(sessionId);
    if (state === null) throw sessionNotFound();
    if (state.parentSessionId === undefined) {
      if (!owns(principal, state)) throw sessionNotFound();
      return { state, root: state };
    }
    // A descendant carries no user of its own: any that does must be the principal's too.
    if (state.userId !== undefined && state.userId !== principal?.id) throw sessionNotFound();
    const root = await this.#rootOf(state);
    if (root === null || !owns(principal, root)) throw sessionNotFound();
    return { state, root };
  }

  async #rootOf(state: SessionState): Promise<SessionState | null> {
    const { stateStore } = this.options;
    if (state.rootSessionId !== undefined && state.rootSessionId !== state.sessionId) {
      const root = await stateStore.loadState(state.rootSessionId);
      return root?.parentSessionId === undefined ? root : null;
    }
    let current: SessionState | null = state;
    for (let hops = 0; current !== null && current.parentSessionId !== undefined && hops < MAX_PARENT_HOPS; hops += 1) {
      current = await stateStore.loadState(current.parentSessionId);
    }
    return current?.parentSessionId === undefined ? current : null;
  }

  /** The agent that runs a session (by its `agentType`). */
  agentOf(state: SessionState): AnyAgentConfig {
    const agent = this.agents.get(state.agentType);
    if (agent === undefined) throw new AgentServerHttpError(404, 'AGENT_NOT_FOUND', 'This server does not run the agent of this session.');
    return agent;
  }
}

/** @internal */
export function owns(principal: AgentServerPrincipal | null, state: SessionState): boolean {
  return (state.userId ?? null) === (principal?.id ?? null);
}

import type { AnyAgentConfig } from '../agent/index.js';
import type { Logger } from '../hooks/types.js';
import type { SessionState } from '../types/session.js';
import { AgentServerHttpError, sessionNotFound } from './server-errors.js';
import type { AgentServerOptions, AgentServerPrincipal } from './server-options.js';

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
   * The session, when it exists and belongs to `principal` (its `userId` is the principal's id; the
   * anonymous principal owns sessions created without one). Anything else is the same 404.
   */
  async ownedSession(principal: AgentServerPrincipal | null, sessionId: string): Promise<SessionState> {
    const state = await this.options.stateStore.loadState(sessionId);
    if (state === null || !owns(principal, state)) throw sessionNotFound();
    return state;
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

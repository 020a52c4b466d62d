import type { Logger } from '../hooks/types.js';
import type { AnyAgentConfig } from './agent-types.js';

const warned = new WeakSet<object>();

/**
 * Warns once per agent (per process) about config this runtime accepts but does not use: `memory` logs
 * `agent.memory.unused` with the agent type. Called by the LLM step, where the executor's logger is at hand.
 *
 * @example
 * warnUnusedAgentConfig(agent, logger);
 */
export function warnUnusedAgentConfig(agent: AnyAgentConfig, logger: Logger): void {
  if (agent.memory === undefined || warned.has(agent)) return;
  warned.add(agent);
  logger.warn('agent.memory.unused', {
    agentType: agent.name,
    advice: 'AgentConfig.memory is accepted for portability but never used by the DBOS runtime; remove it or load memories in a tool.',
  });
}

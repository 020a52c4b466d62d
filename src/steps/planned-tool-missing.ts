import { ConfigurationError } from '../errors/index.js';

/**
 * The error of a step whose planned call names no tool of that kind in the agent any more: the agent's definition
 * changed between the step's planning and its execution (a redeploy while its run recovers). `INVALID_TOOL_CONFIG`;
 * the names are in `data`, not the message.
 *
 * @example
 * if (tool?.kind !== 'server') throw plannedToolMissing('server', call.toolName, agent.name);
 */
export function plannedToolMissing(kind: 'server' | 'transactional' | 'sub-agent' | 'remote sub-agent', toolName: string, agentType: string): ConfigurationError {
  return new ConfigurationError(
    'INVALID_TOOL_CONFIG',
    `This agent has no ${kind} tool of the name this run called; keep that tool in the agent while runs that called it may recover.`,
    { toolName, agentType },
  );
}

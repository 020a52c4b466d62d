import { collectEffectiveTools, type AgentTool, type AnyAgentConfig } from '../agent/index.js';

/**
 * Every tool the model is offered: the agent's tools, then `__finish__` (with an `outputSchema`), then the
 * companion tools (with `persistentAgents`). Memoized per agent; the list is frozen.
 *
 * @example
 * const schemas = toToolSchemas(buildEffectiveTools(agent));
 */
export function buildEffectiveTools(agent: AnyAgentConfig): readonly AgentTool[] {
  return collectEffectiveTools(agent);
}

/**
 * The effective tool called `name`, if any.
 *
 * @example
 * const tool = findEffectiveTool(agent, toolCall.name);
 */
export function findEffectiveTool(agent: AnyAgentConfig, name: string): AgentTool | undefined {
  return collectEffectiveTools(agent).find((tool) => tool.name === name);
}

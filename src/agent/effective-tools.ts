import type { AnyAgentConfig } from './agent-types.js';
import { createCompanionTools } from './companion-tools.js';
import { createFinishTool } from './finish-tool.js';
import type { AgentTool } from './tool-types.js';
import { createSkillTools } from '../skills/skill-tools.js';

const cache = new WeakMap<object, readonly AgentTool[]>();

/**
 * Every tool the model is offered for an agent, in order: its own tools, `__finish__` (when it has an
 * `outputSchema`), the companion tools (when it has `persistentAgents`), then `load_skill` and
 * `read_skill_file` (when it has `skills`). Memoized per agent.
 *
 * @example
 * collectEffectiveTools(agent).map((tool) => tool.name); // ['search', '__finish__']
 */
export function collectEffectiveTools(agent: AnyAgentConfig): readonly AgentTool[] {
  const cached = cache.get(agent);
  if (cached !== undefined) return cached;
  const tools: AgentTool[] = [...agent.tools];
  if (agent.outputSchema !== undefined) tools.push(createFinishTool(agent.outputSchema));
  tools.push(...createCompanionTools(agent.persistentAgents));
  if (agent.skills !== undefined) tools.push(...createSkillTools(agent.skills));
  const frozen = Object.freeze(tools);
  if (Object.isFrozen(agent)) cache.set(agent, frozen);
  return frozen;
}

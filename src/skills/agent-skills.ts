import { ConfigurationError } from '../errors/index.js';
import type { Logger } from '../hooks/types.js';
import { generateSkillsSystemPromptFragment, SKILL_NAME_PATTERN, type PreloadedSkillBody } from '../orchestration/skill-catalog.js';
import type { SkillDefinition, SkillProvider } from '../types/skill.js';
import { inCodeSkillProvider } from './in-code-skill-provider.js';

/** The skill fields of an agent as `defineAgent` stores them. */
export interface AgentSkillFields {
  readonly name: string;
  readonly skills?: SkillProvider;
  readonly preloadSkills?: readonly string[];
}

/**
 * `AgentDefinition.skills` as a provider: an array of definitions becomes an `inCodeSkillProvider`, a provider
 * is kept. Used by `defineAgent`.
 *
 * @throws ConfigurationError `INVALID_AGENT_CONFIG` for anything else or an invalid definition.
 */
export function toSkillProvider(skills: readonly SkillDefinition[] | SkillProvider, agentName: string): SkillProvider {
  if (Array.isArray(skills)) return inCodeSkillProvider(skills as readonly SkillDefinition[]);
  if (isSkillProvider(skills)) return skills;
  throw new ConfigurationError(
    'INVALID_AGENT_CONFIG',
    `Agent "${agentName}": skills must be an array of { name, description, body } or a SkillProvider (listSkills, getSkill, readResource).`,
    { agentName },
  );
}

/**
 * `AgentDefinition.preloadSkills` checked (an array of skill names) and frozen. Names are resolved at run time.
 *
 * @throws ConfigurationError `INVALID_AGENT_CONFIG` for a non-array, a malformed name, or preloadSkills without skills.
 */
export function validatePreloadSkills(preloadSkills: unknown, hasSkills: boolean, agentName: string): readonly string[] | undefined {
  if (preloadSkills === undefined) return undefined;
  const fail = (message: string): ConfigurationError => new ConfigurationError('INVALID_AGENT_CONFIG', `Agent "${agentName}": ${message}`, { agentName });
  if (!Array.isArray(preloadSkills)) throw fail('preloadSkills must be an array of skill names.');
  if (!hasSkills) throw fail('preloadSkills needs skills: declare the skills the names refer to.');
  if (!preloadSkills.every((name) => typeof name === 'string' && SKILL_NAME_PATTERN.test(name))) {
    throw fail('preloadSkills entries must be skill names matching ^[a-z0-9-]{1,64}$.');
  }
  return Object.freeze([...new Set(preloadSkills as string[])]);
}

const warnedUnknownPreloads = new WeakMap<object, Set<string>>();

/**
 * The skills section of an agent's system prompt (see `generateSkillsSystemPromptFragment`), read from its
 * provider. Called inside the LLM step, so a provider's I/O is part of a checkpointed step. A preloaded name the
 * provider does not know is skipped, with one `skills.preload.unknown` warning per agent and name.
 *
 * @example
 * const fragment = await resolveSkillsPromptFragment(agent, logger);
 */
export async function resolveSkillsPromptFragment(agent: AgentSkillFields, logger: Logger): Promise<string> {
  const provider = agent.skills;
  if (provider === undefined) return '';
  const metadata = await provider.listSkills();
  const preloaded: PreloadedSkillBody[] = [];
  for (const name of agent.preloadSkills ?? []) {
    const skill = metadata.some((entry) => entry.name === name) ? await provider.getSkill(name) : null;
    if (skill === null) {
      warnUnknownPreload(agent, name, logger);
      continue;
    }
    preloaded.push({ name: skill.name, body: skill.body });
  }
  return generateSkillsSystemPromptFragment(metadata, preloaded);
}

function warnUnknownPreload(agent: AgentSkillFields, name: string, logger: Logger): void {
  let warned = warnedUnknownPreloads.get(agent);
  if (warned === undefined) {
    warned = new Set();
    warnedUnknownPreloads.set(agent, warned);
  }
  if (warned.has(name)) return;
  warned.add(name);
  logger.warn('skills.preload.unknown', { agentType: agent.name, skill: name });
}

function isSkillProvider(value: unknown): value is SkillProvider {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return ['listSkills', 'getSkill', 'readResource'].every((method) => typeof candidate[method] === 'function');
}

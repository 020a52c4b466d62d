import { normalizeSkillResourcePath, sliceLines } from '../orchestration/skill-resources.js';
import type { ReadResourceRange, Skill, SkillDefinition, SkillMetadata, SkillProvider } from '../types/skill.js';
import { validateSkillDefinitions } from './validate-skill.js';

/**
 * A `SkillProvider` over skills written as TypeScript data (what `defineAgent({ skills: [...] })` uses).
 * Deterministic and dependency-free. Definitions are validated and copied now.
 *
 * @throws ConfigurationError `INVALID_AGENT_CONFIG` for a name not matching `^[a-z0-9-]{1,64}$`, a missing
 *   description or body, a duplicate name, or a resource path that leaves the skill.
 * @example
 * const skills = inCodeSkillProvider([
 *   { name: 'deploy-runbook', description: 'How to deploy. Use before any deploy.', body: '# Deploy\n…', resources: { 'references/checklist.md': '- [ ] tag' } },
 * ]);
 * defineAgent({ name: 'ops', systemPrompt: 'You run ops.', skills });
 */
export function inCodeSkillProvider(definitions: readonly SkillDefinition[]): SkillProvider {
  const skills = new Map<string, { skill: Skill; files: Map<string, string> }>();
  for (const definition of validateSkillDefinitions(definitions)) {
    const files = new Map<string, string>();
    for (const [path, text] of Object.entries(definition.resources ?? {})) files.set(normalizeSkillResourcePath(path) ?? path, text);
    const resources = [...files.keys()].sort();
    skills.set(definition.name, { skill: { name: definition.name, description: definition.description, body: definition.body, resources }, files });
  }
  return Object.freeze({
    async listSkills(): Promise<SkillMetadata[]> {
      return [...skills.values()].map(({ skill }) => ({ name: skill.name, description: skill.description }));
    },
    async getSkill(name: string): Promise<Skill | null> {
      const entry = skills.get(name);
      return entry === undefined ? null : { ...entry.skill, resources: [...entry.skill.resources] };
    },
    async readResource(name: string, path: string, range?: ReadResourceRange): Promise<string | null> {
      const normalized = normalizeSkillResourcePath(path);
      const text = normalized === null ? undefined : skills.get(name)?.files.get(normalized);
      return text === undefined ? null : sliceLines(text, range);
    },
  });
}

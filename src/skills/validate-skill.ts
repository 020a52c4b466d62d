import { ConfigurationError } from '../errors/index.js';
import { SKILL_NAME_PATTERN } from '../orchestration/skill-catalog.js';
import { normalizeSkillResourcePath } from '../orchestration/skill-resources.js';
import type { SkillDefinition } from '../types/skill.js';

/**
 * Checks in-code skill definitions (names, descriptions, bodies, resource paths, no duplicates).
 *
 * @throws ConfigurationError `INVALID_AGENT_CONFIG` naming the first problem (never the body's text).
 */
export function validateSkillDefinitions(definitions: readonly SkillDefinition[]): readonly SkillDefinition[] {
  if (!Array.isArray(definitions)) throw skillError('skills must be an array of { name, description, body } or a SkillProvider.');
  const seen = new Set<string>();
  definitions.forEach((definition: unknown, index) => {
    if (typeof definition !== 'object' || definition === null) throw skillError(`skills[${index}] must be an object { name, description, body }.`);
    const { name, description, body, resources } = definition as Record<string, unknown>;
    if (typeof name !== 'string' || !SKILL_NAME_PATTERN.test(name)) {
      throw skillError(`skills[${index}].name must match ^[a-z0-9-]{1,64}$ (lower-case letters, digits and "-").`);
    }
    if (seen.has(name)) throw skillError(`two skills are named "${name}"; skill names must be unique.`);
    seen.add(name);
    if (typeof description !== 'string' || description.trim() === '') throw skillError(`skill "${name}" needs a non-empty description.`);
    if (typeof body !== 'string') throw skillError(`skill "${name}" needs a string body.`);
    if (resources !== undefined) {
      if (typeof resources !== 'object' || resources === null || Array.isArray(resources)) {
        throw skillError(`skill "${name}": resources must be an object of path → text.`);
      }
      for (const [path, text] of Object.entries(resources)) {
        if (normalizeSkillResourcePath(path) === null) throw skillError(`skill "${name}": a resource path leaves the skill or is empty.`);
        if (typeof text !== 'string') throw skillError(`skill "${name}": resource files must be strings.`);
      }
    }
  });
  return definitions;
}

function skillError(message: string): ConfigurationError {
  return new ConfigurationError('INVALID_AGENT_CONFIG', message);
}

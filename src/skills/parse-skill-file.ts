import { parse } from 'yaml';
import { SKILL_NAME_PATTERN } from '../orchestration/skill-catalog.js';
import type { SkillMetadata } from '../types/skill.js';

/**
 * A parsed `SKILL.md`: its frontmatter's name and description, and the markdown body after it.
 *
 * @example
 * const parsed: ParsedSkillFile = { name: 'deploy', description: 'Deploy runbook', body: '# Deploy\n' };
 */
export interface ParsedSkillFile extends SkillMetadata {
  body: string;
}

const FRONTMATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * Parse an Anthropic-format `SKILL.md`: YAML frontmatter between `---` lines with `name` and `description`,
 * then the markdown body. Returns a reason instead of throwing, so a provider can skip a bad file.
 *
 * @example
 * parseSkillFile('---\nname: deploy\ndescription: Deploy runbook\n---\n# Deploy\n');
 * // { ok: true, skill: { name: 'deploy', description: 'Deploy runbook', body: '# Deploy\n' } }
 */
export function parseSkillFile(text: string): { ok: true; skill: ParsedSkillFile } | { ok: false; reason: string } {
  const match = FRONTMATTER.exec(text);
  if (match === null) return { ok: false, reason: 'SKILL.md must start with YAML frontmatter between "---" lines.' };
  let frontmatter: unknown;
  try {
    frontmatter = parse(match[1] ?? '');
  } catch {
    return { ok: false, reason: 'the frontmatter of SKILL.md is not valid YAML.' };
  }
  if (typeof frontmatter !== 'object' || frontmatter === null) return { ok: false, reason: 'the frontmatter of SKILL.md must be a mapping.' };
  const { name, description } = frontmatter as Record<string, unknown>;
  if (typeof name !== 'string' || !SKILL_NAME_PATTERN.test(name)) {
    return { ok: false, reason: 'the frontmatter "name" must match ^[a-z0-9-]{1,64}$.' };
  }
  if (typeof description !== 'string' || description.trim() === '') {
    return { ok: false, reason: 'the frontmatter needs a non-empty "description".' };
  }
  return { ok: true, skill: { name, description: description.trim(), body: text.slice(match[0].length) } };
}

import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { Logger } from '../hooks/types.js';
import { normalizeSkillResourcePath, sliceLines } from '../orchestration/skill-resources.js';
import type { ReadResourceRange, Skill, SkillMetadata, SkillProvider } from '../types/skill.js';
import { parseSkillFile, type ParsedSkillFile } from './parse-skill-file.js';

/**
 * Options of `fileSystemSkillProvider`.
 *
 * @example
 * const options: FileSystemSkillProviderOptions = { roots: ['./skills'], logger: consoleLogger };
 */
export interface FileSystemSkillProviderOptions {
  /** Directories holding one sub-directory per skill (`<root>/<skill>/SKILL.md`). A name found in an earlier root wins. */
  roots: readonly string[];
  /** Warned about skipped directories (bad or missing frontmatter); default: silent. */
  logger?: Logger;
}

interface FoundSkill {
  directory: string;
  parsed: ParsedSkillFile;
}

const SKILL_FILE = 'SKILL.md';
const MAX_RESOURCE_DEPTH = 4;

/**
 * A `SkillProvider` reading Anthropic-format skill directories: `<root>/<skill>/SKILL.md` (YAML frontmatter
 * with `name` and `description`, then the markdown body) plus any other files of the directory as resources
 * (`references/`, `scripts/`, `assets/` …). The directories are read on every call, so added, removed and
 * edited skills show up at the next step. The runtime calls it inside durable steps only, so its reads are
 * checkpointed and replay-safe. The path guard is lexical and does not follow symbolic links.
 *
 * @example
 * defineAgent({ name: 'ops', systemPrompt: 'You run ops.', skills: fileSystemSkillProvider({ roots: ['./skills'] }) });
 */
export function fileSystemSkillProvider(options: FileSystemSkillProviderOptions): SkillProvider {
  const roots = options.roots.map((root) => resolve(root));

  async function scan(): Promise<Map<string, FoundSkill>> {
    const found = new Map<string, FoundSkill>();
    for (const root of roots) {
      const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
      for (const entry of entries.filter((item) => item.isDirectory()).sort((left, right) => (left.name < right.name ? -1 : 1))) {
        const directory = join(root, entry.name);
        const text = await readFile(join(directory, SKILL_FILE), 'utf8').catch(() => undefined);
        if (text === undefined) continue;
        const parsed = parseSkillFile(text);
        if (!parsed.ok) {
          options.logger?.warn('skills.skipped', { directory: entry.name, reason: parsed.reason });
          continue;
        }
        if (!found.has(parsed.skill.name)) found.set(parsed.skill.name, { directory, parsed: parsed.skill });
      }
    }
    return found;
  }

  return Object.freeze({
    async listSkills(): Promise<SkillMetadata[]> {
      return [...(await scan()).values()].map(({ parsed }) => ({ name: parsed.name, description: parsed.description }));
    },
    async getSkill(name: string): Promise<Skill | null> {
      const found = (await scan()).get(name);
      if (found === undefined) return null;
      const resources = (await listFiles(found.directory, '', 0)).filter((path) => path !== SKILL_FILE).sort();
      return { name, description: found.parsed.description, body: found.parsed.body, resources };
    },
    async readResource(name: string, path: string, range?: ReadResourceRange): Promise<string | null> {
      const normalized = normalizeSkillResourcePath(path);
      if (normalized === null) return null;
      const found = (await scan()).get(name);
      if (found === undefined) return null;
      const target = resolve(found.directory, ...normalized.split('/'));
      const inside = relative(found.directory, target);
      if (inside === '' || inside.startsWith('..') || inside.startsWith(sep)) return null;
      const text = await readFile(target, 'utf8').catch(() => undefined);
      return text === undefined ? null : sliceLines(text, range);
    },
  });
}

async function listFiles(directory: string, prefix: string, depth: number): Promise<string[]> {
  if (depth > MAX_RESOURCE_DEPTH) return [];
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isFile()) files.push(path);
    else if (entry.isDirectory()) files.push(...(await listFiles(join(directory, entry.name), path, depth + 1)));
  }
  return files;
}

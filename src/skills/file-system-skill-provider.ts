import type { Dirent } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Logger } from '../hooks/types.js';
import { normalizeSkillResourcePath, sliceLines } from '../orchestration/skill-resources.js';
import type { ReadResourceRange, Skill, SkillMetadata, SkillProvider } from '../types/skill.js';
import { parseSkillFile, type ParsedSkillFile } from './parse-skill-file.js';
import { locateInside } from './real-path.js';
import { SkillPathRefusedError } from './skill-path-refused-error.js';
import { forgetSkippedSkill, warnSkippedSkillOnce } from './skipped-skill-warnings.js';

/**
 * Options of `fileSystemSkillProvider`.
 *
 * @example
 * const options: FileSystemSkillProviderOptions = { roots: ['./skills'], logger: consoleLogger };
 */
export interface FileSystemSkillProviderOptions {
  /** Directories holding one sub-directory per skill (`<root>/<skill>/SKILL.md`). A name found in an earlier root wins. */
  roots: readonly string[];
  /** Warned (`skills.skipped`, once per directory and reason in this process) about skipped directories; default: silent. */
  logger?: Logger;
}

interface FoundSkill {
  /** The skill directory's real path: every file the provider reads must resolve below it. */
  realDirectory: string;
  parsed: ParsedSkillFile;
}

const SKILL_FILE = 'SKILL.md';
const MAX_RESOURCE_DEPTH = 4;
const SKILL_FILE_OUTSIDE = "SKILL.md is a symbolic link to a file outside the skill's directory.";

/**
 * A `SkillProvider` reading Anthropic-format skill directories: `<root>/<skill>/SKILL.md` (YAML frontmatter
 * with `name` and `description`, then the markdown body) plus any other files of the directory as resources
 * (`references/`, `scripts/`, `assets/` …). The directories are read on every call, so added, removed and
 * edited skills show up at the next step. The runtime calls it inside durable steps only, so its reads are
 * checkpointed and replay-safe. Paths are checked twice: lexically (no `..` past the skill, no absolute path),
 * then by real path, so a symbolic link (a file, a folder, or `SKILL.md` itself) whose target leaves the skill's
 * real directory is neither listed nor read. Links that stay inside the skill, and a skills directory reached
 * through a link, are fine. A directory with a bad `SKILL.md` is skipped with one `skills.skipped` warning.
 *
 * @throws SkillPathRefusedError `INVALID_ARGUMENT` from `readResource` when the file's real path leaves the skill
 *   (`read_skill_file` shows the model the same refusal as for a `../..` path).
 * @example
 * defineAgent({ name: 'ops', systemPrompt: 'You run ops.', skills: fileSystemSkillProvider({ roots: ['./skills'] }) });
 */
export function fileSystemSkillProvider(options: FileSystemSkillProviderOptions): SkillProvider {
  const roots = options.roots.map((root) => resolve(root));
  const { logger } = options;

  async function scan(): Promise<Map<string, FoundSkill>> {
    const found = new Map<string, FoundSkill>();
    for (const root of roots) {
      const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
      for (const entry of entries.filter((item) => item.isDirectory()).sort((left, right) => (left.name < right.name ? -1 : 1))) {
        const directory = join(root, entry.name);
        const skill = await readSkillDirectory(directory);
        if (skill === undefined) continue;
        if ('reason' in skill) {
          warnSkippedSkillOnce(logger, directory, { directory: entry.name, reason: skill.reason });
          continue;
        }
        forgetSkippedSkill(logger, directory);
        if (!found.has(skill.parsed.name)) found.set(skill.parsed.name, skill);
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
      const resources = (await listFiles(found.realDirectory, found.realDirectory, '', 0)).filter((path) => path !== SKILL_FILE).sort();
      return { name, description: found.parsed.description, body: found.parsed.body, resources };
    },
    async readResource(name: string, path: string, range?: ReadResourceRange): Promise<string | null> {
      const normalized = normalizeSkillResourcePath(path);
      if (normalized === null) return null;
      const found = (await scan()).get(name);
      if (found === undefined) return null;
      const target = await locateInside(found.realDirectory, join(found.realDirectory, ...normalized.split('/')));
      if (target.kind === 'outside') throw new SkillPathRefusedError(name);
      if (target.kind === 'missing') return null;
      const text = await readFile(target.path, 'utf8').catch(() => undefined);
      return text === undefined ? null : sliceLines(text, range);
    },
  });
}

/** A skill directory's parsed SKILL.md, why it was skipped, or undefined when it holds no SKILL.md. */
async function readSkillDirectory(directory: string): Promise<FoundSkill | { reason: string } | undefined> {
  const realDirectory = await realpath(directory).catch(() => undefined);
  if (realDirectory === undefined) return undefined;
  const skillFile = await locateInside(realDirectory, join(realDirectory, SKILL_FILE));
  if (skillFile.kind === 'missing') return undefined;
  if (skillFile.kind === 'outside') return { reason: SKILL_FILE_OUTSIDE };
  const text = await readFile(skillFile.path, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const parsed = parseSkillFile(text);
  return parsed.ok ? { realDirectory, parsed: parsed.skill } : { reason: parsed.reason };
}

/**
 * The files below `directory` (a real path inside `realRoot`) as `/`-joined paths under `prefix`. A symbolic link
 * counts as the file or folder it points to when its real path stays below `realRoot`, and is left out otherwise,
 * so what is listed is exactly what `readResource` reads. The depth bound also ends link cycles.
 */
async function listFiles(realRoot: string, directory: string, prefix: string, depth: number): Promise<string[]> {
  if (depth > MAX_RESOURCE_DEPTH) return [];
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    const kind = await entryKind(realRoot, directory, entry);
    if (kind?.type === 'file') files.push(path);
    else if (kind?.type === 'directory') files.push(...(await listFiles(realRoot, kind.realPath, path, depth + 1)));
  }
  return files;
}

async function entryKind(realRoot: string, directory: string, entry: Dirent): Promise<{ type: 'file' | 'directory'; realPath: string } | undefined> {
  const path = join(directory, entry.name);
  if (!entry.isSymbolicLink()) {
    if (entry.isFile()) return { type: 'file', realPath: path };
    return entry.isDirectory() ? { type: 'directory', realPath: path } : undefined;
  }
  const target = await locateInside(realRoot, path);
  if (target.kind !== 'inside') return undefined;
  const stats = await stat(target.path).catch(() => undefined);
  if (stats?.isFile() === true) return { type: 'file', realPath: target.path };
  return stats?.isDirectory() === true ? { type: 'directory', realPath: target.path } : undefined;
}

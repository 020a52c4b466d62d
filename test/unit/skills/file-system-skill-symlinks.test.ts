import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../../src/agent/index.js';
import type { Logger } from '../../../src/hooks/types.js';
import { createSkillTools, fileSystemSkillProvider } from '../../../src/skills/index.js';

const REFUSED = { error: "Refused: the path must be relative and stay inside the skill's directory." };
const refusal = { name: 'SkillPathRefusedError', code: 'INVALID_ARGUMENT' };
const context = { emit: () => {} } as unknown as ToolContext;

describe('fileSystemSkillProvider: symbolic links', () => {
  let base: string;
  let root: string;
  const warnings: Array<[string, Record<string, unknown> | undefined]> = [];
  const logger: Logger = { info: () => {}, error: () => {}, warn: (message, fields) => void warnings.push([message, fields]) };

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'helix-skill-links-'));
    const outside = join(base, 'outside');
    await mkdir(join(outside, 'folder'), { recursive: true });
    await writeFile(join(outside, 'secret.txt'), 'TOP SECRET\n');
    await writeFile(join(outside, 'folder', 'leak.md'), 'LEAKED\n');
    await writeFile(join(outside, 'SKILL.md'), '---\nname: hijacked\ndescription: Outside the skills dir.\n---\nOUTSIDE BODY\n');
    const realRoot = join(base, 'real-skills');
    const pdf = join(realRoot, 'pdf');
    await mkdir(join(pdf, 'references'), { recursive: true });
    await writeFile(join(pdf, 'SKILL.md'), '---\nname: pdf-processing\ndescription: Work with PDFs.\n---\n# PDF\n');
    await writeFile(join(pdf, 'references', 'forms.md'), 'form 1\nform 2\n');
    await writeFile(join(pdf, 'notes.md'), 'notes\n');
    await symlink(join(outside, 'secret.txt'), join(pdf, 'references', 'passwd.md'));
    await symlink('../../zip/zip.md', join(pdf, 'references', 'sibling.md'));
    await symlink(join(outside, 'folder'), join(pdf, 'shared'));
    await symlink('../notes.md', join(pdf, 'references', 'inside.md'));
    await symlink('references', join(pdf, 'docs'));
    await symlink('missing.md', join(pdf, 'dangling.md'));
    await mkdir(join(realRoot, 'zip'));
    await writeFile(join(realRoot, 'zip', 'SKILL.md'), '---\nname: zip\ndescription: Zip files.\n---\nzip\n');
    await writeFile(join(realRoot, 'zip', 'zip.md'), 'ZIP SIBLING\n');
    await mkdir(join(realRoot, 'hijack'));
    await symlink(join(outside, 'SKILL.md'), join(realRoot, 'hijack', 'SKILL.md'));
    await mkdir(join(realRoot, 'aliased'));
    await writeFile(join(realRoot, 'aliased', 'real-skill.md'), '---\nname: aliased\ndescription: SKILL.md is a link inside.\n---\nALIASED\n');
    await symlink('real-skill.md', join(realRoot, 'aliased', 'SKILL.md'));
    // The skills directory itself is reached through a symbolic link.
    root = join(base, 'skills');
    await symlink(realRoot, root);
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('lists only files whose real path stays inside the skill, and every listed file is readable', async () => {
    const provider = fileSystemSkillProvider({ roots: [root] });
    const skill = await provider.getSkill('pdf-processing');
    expect(skill?.resources).toEqual(['docs/forms.md', 'docs/inside.md', 'notes.md', 'references/forms.md', 'references/inside.md']);
    for (const path of skill?.resources ?? []) expect(await provider.readResource('pdf-processing', path)).toMatch(/^(form 1|notes)\n/);
    expect(await provider.readResource('pdf-processing', 'references/inside.md')).toBe('notes\n');
    expect(await provider.readResource('pdf-processing', 'docs/forms.md', { startLine: 2 })).toBe('form 2\n');
  });

  it.each([
    ['a file link to an absolute path outside', 'references/passwd.md'],
    ['a file link to a sibling skill', 'references/sibling.md'],
    ['a file under a directory link to outside', 'shared/leak.md'],
  ])('refuses %s with the typed error, and read_skill_file with the traversal refusal', async (_label, path) => {
    const provider = fileSystemSkillProvider({ roots: [root] });
    await expect(provider.readResource('pdf-processing', path)).rejects.toMatchObject(refusal);
    const [, readSkillFile] = createSkillTools(provider);
    expect(await readSkillFile.execute({ name: 'pdf-processing', path }, context)).toEqual(REFUSED);
    expect(await readSkillFile.execute({ name: 'pdf-processing', path: '../../outside/secret.txt' }, context)).toEqual(REFUSED);
  });

  it('treats a dangling link as a missing file', async () => {
    const provider = fileSystemSkillProvider({ roots: [root] });
    expect(await provider.readResource('pdf-processing', 'dangling.md')).toBeNull();
  });

  it('load_skill lists no escaping link', async () => {
    const [loadSkill] = createSkillTools(fileSystemSkillProvider({ roots: [root] }));
    const text = String(await loadSkill.execute({ name: 'pdf-processing' }, context));
    expect(text).toContain('- references/inside.md');
    expect(text).not.toMatch(/passwd|sibling|shared|dangling/);
  });

  it('skips a skill whose SKILL.md links outside it (with a warning) and keeps one linking inside', async () => {
    const provider = fileSystemSkillProvider({ roots: [root], logger });
    expect((await provider.listSkills()).map((skill) => skill.name)).toEqual(['aliased', 'pdf-processing', 'zip']);
    expect(await provider.getSkill('hijacked')).toBeNull();
    expect((await provider.getSkill('aliased'))?.body).toBe('ALIASED\n');
    expect(warnings).toEqual([['skills.skipped', { directory: 'hijack', reason: "SKILL.md is a symbolic link to a file outside the skill's directory." }]]);
  });
});

describe('fileSystemSkillProvider: skipped-skill warnings', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'helix-skill-warnings-'));
    await mkdir(join(root, 'good'));
    await writeFile(join(root, 'good', 'SKILL.md'), '---\nname: good\ndescription: Fine.\n---\nbody\n');
    await writeFile(join(root, 'good', 'file.md'), 'file\n');
    await mkdir(join(root, 'broken'));
    await writeFile(join(root, 'broken', 'SKILL.md'), 'no frontmatter');
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  function recordingLogger(): { logger: Logger; skipped: () => Array<Record<string, unknown> | undefined> } {
    const calls: Array<[string, Record<string, unknown> | undefined]> = [];
    const logger: Logger = { info: () => {}, error: () => {}, warn: (message, fields) => void calls.push([message, fields]) };
    return { logger, skipped: () => calls.filter(([message]) => message === 'skills.skipped').map(([, fields]) => fields) };
  }
  const noFrontmatter = { directory: 'broken', reason: 'SKILL.md must start with YAML frontmatter between "---" lines.' };

  it('warns once for a broken folder however many times the provider loads, and across re-created providers', async () => {
    const { logger, skipped } = recordingLogger();
    const provider = fileSystemSkillProvider({ roots: [root], logger });
    for (let step = 0; step < 6; step += 1) {
      await provider.listSkills();
      await provider.getSkill('good');
      await provider.readResource('good', 'file.md');
    }
    await fileSystemSkillProvider({ roots: [root], logger }).listSkills();
    expect(skipped()).toEqual([noFrontmatter]);
  });

  it('warns again when the reason changes, or when a fixed folder breaks again', async () => {
    const { logger, skipped } = recordingLogger();
    const provider = fileSystemSkillProvider({ roots: [root], logger });
    await provider.listSkills();
    await writeFile(join(root, 'broken', 'SKILL.md'), '---\nname: broken\n---\n');
    await provider.listSkills();
    await provider.listSkills();
    await writeFile(join(root, 'broken', 'SKILL.md'), '---\nname: broken\ndescription: Fixed.\n---\n');
    expect((await provider.listSkills()).map((skill) => skill.name)).toEqual(['broken', 'good']);
    await writeFile(join(root, 'broken', 'SKILL.md'), 'no frontmatter');
    await provider.listSkills();
    await provider.listSkills();
    expect(skipped()).toEqual([noFrontmatter, { directory: 'broken', reason: 'the frontmatter needs a non-empty "description".' }, noFrontmatter]);
  });
});

import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../../src/hooks/types.js';
import { fileSystemSkillProvider, inCodeSkillProvider, parseSkillFile, resolveSkillsPromptFragment } from '../../../src/skills/index.js';

describe('parseSkillFile', () => {
  const cases: Array<[string, string, ReturnType<typeof parseSkillFile>]> = [
    ['frontmatter and body', '---\nname: deploy\ndescription: Deploy runbook\n---\n# Deploy\n', { ok: true, skill: { name: 'deploy', description: 'Deploy runbook', body: '# Deploy\n' } }],
    ['CRLF and a BOM', '\uFEFF---\r\nname: a\r\ndescription: "Quoted: yes"\r\n---\r\nBody', { ok: true, skill: { name: 'a', description: 'Quoted: yes', body: 'Body' } }],
    ['folded description', '---\nname: a\ndescription: >\n  one\n  two\n---\n', { ok: true, skill: { name: 'a', description: 'one two', body: '' } }],
    ['no frontmatter', '# Just markdown', { ok: false, reason: 'SKILL.md must start with YAML frontmatter between "---" lines.' }],
    ['invalid YAML', '---\nname: [unclosed\n---\n', { ok: false, reason: 'the frontmatter of SKILL.md is not valid YAML.' }],
    ['a scalar frontmatter', '---\njust text\n---\n', { ok: false, reason: 'the frontmatter of SKILL.md must be a mapping.' }],
    ['a bad name', '---\nname: Bad_Name\ndescription: d\n---\n', { ok: false, reason: 'the frontmatter "name" must match ^[a-z0-9-]{1,64}$.' }],
    ['no description', '---\nname: a\n---\n', { ok: false, reason: 'the frontmatter needs a non-empty "description".' }],
  ];
  it.each(cases)('%s', (_label, text, expected) => {
    expect(parseSkillFile(text)).toEqual(expected);
  });
});

describe('inCodeSkillProvider', () => {
  const provider = inCodeSkillProvider([
    { name: 'forms', description: 'PDF forms', body: '# Forms', resources: { './references/fields.md': 'a\nb\nc\n', 'scripts/fill.py': 'print(1)' } },
  ]);
  it('lists, loads and reads with ranges and the path guard', async () => {
    expect(await provider.listSkills()).toEqual([{ name: 'forms', description: 'PDF forms' }]);
    expect(await provider.getSkill('forms')).toEqual({ name: 'forms', description: 'PDF forms', body: '# Forms', resources: ['references/fields.md', 'scripts/fill.py'] });
    expect(await provider.getSkill('missing')).toBeNull();
    expect(await provider.readResource('forms', 'references/fields.md', { startLine: 2, endLine: 2 })).toBe('b\n');
    expect(await provider.readResource('forms', 'scripts/../references/fields.md')).toBe('a\nb\nc\n');
    expect(await provider.readResource('forms', '../forms/references/fields.md')).toBeNull();
    expect(await provider.readResource('forms', 'nope.md')).toBeNull();
  });
});

describe('fileSystemSkillProvider', () => {
  let root: string;
  let second: string;
  const warnings: Array<[string, Record<string, unknown> | undefined]> = [];
  const logger: Logger = { info: () => {}, error: () => {}, warn: (message, fields) => void warnings.push([message, fields]) };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'helix-skills-'));
    second = await mkdtemp(join(tmpdir(), 'helix-skills-2-'));
    await mkdir(join(root, 'pdf', 'references'), { recursive: true });
    await writeFile(join(root, 'pdf', 'SKILL.md'), '---\nname: pdf-processing\ndescription: Work with PDFs.\n---\n# PDF\nUse pdftotext.\n');
    await writeFile(join(root, 'pdf', 'references', 'forms.md'), 'line 1\nline 2\nline 3\n');
    await mkdir(join(root, 'broken'));
    await writeFile(join(root, 'broken', 'SKILL.md'), 'no frontmatter');
    await mkdir(join(root, 'not-a-skill'));
    await writeFile(join(root, 'secret.txt'), 'top secret');
    await mkdir(join(second, 'pdf-again'));
    await writeFile(join(second, 'pdf-again', 'SKILL.md'), '---\nname: pdf-processing\ndescription: Shadowed.\n---\nshadowed');
    await mkdir(join(second, 'zip'));
    await writeFile(join(second, 'zip', 'SKILL.md'), '---\nname: zip\ndescription: Zip files.\n---\nzip body');
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(second, { recursive: true, force: true });
  });

  it('reads SKILL.md directories; earlier roots win; broken ones are skipped with a warning', async () => {
    const provider = fileSystemSkillProvider({ roots: [root, second], logger });
    expect(await provider.listSkills()).toEqual([
      { name: 'pdf-processing', description: 'Work with PDFs.' },
      { name: 'zip', description: 'Zip files.' },
    ]);
    expect(warnings).toContainEqual(['skills.skipped', { directory: 'broken', reason: 'SKILL.md must start with YAML frontmatter between "---" lines.' }]);
    expect(await provider.getSkill('pdf-processing')).toEqual({
      name: 'pdf-processing',
      description: 'Work with PDFs.',
      body: '# PDF\nUse pdftotext.\n',
      resources: ['references/forms.md'],
    });
  });

  it('reads resource files and line ranges, and refuses paths outside the skill', async () => {
    const provider = fileSystemSkillProvider({ roots: [root] });
    expect(await provider.readResource('pdf-processing', 'references/forms.md', { startLine: 2 })).toBe('line 2\nline 3\n');
    expect(await provider.readResource('pdf-processing', '../secret.txt')).toBeNull();
    expect(await provider.readResource('pdf-processing', 'references/../../secret.txt')).toBeNull();
    expect(await provider.readResource('pdf-processing', join(root, 'secret.txt'))).toBeNull();
    expect(await provider.readResource('pdf-processing', 'references/missing.md')).toBeNull();
    expect(await provider.readResource('nope', 'references/forms.md')).toBeNull();
  });

  it('sees a skill added after it was created (directories are read on every call)', async () => {
    const provider = fileSystemSkillProvider({ roots: [root] });
    expect((await provider.listSkills()).map((skill) => skill.name)).toEqual(['pdf-processing']);
    await mkdir(join(root, 'later'));
    await writeFile(join(root, 'later', 'SKILL.md'), '---\nname: later\ndescription: Added later.\n---\n');
    expect((await provider.listSkills()).map((skill) => skill.name)).toEqual(['later', 'pdf-processing']);
  });
});

describe('resolveSkillsPromptFragment', () => {
  it('renders preloaded bodies and warns once per agent and unknown name', async () => {
    const warnings: string[] = [];
    const logger: Logger = { info: () => {}, error: () => {}, warn: (message, fields) => void warnings.push(`${message}:${String(fields?.skill)}`) };
    const agent = Object.freeze({
      name: 'ops',
      skills: inCodeSkillProvider([{ name: 'deploy', description: 'Deploy.', body: 'DEPLOY BODY' }]),
      preloadSkills: ['ghost', 'deploy'],
    });
    const first = await resolveSkillsPromptFragment(agent, logger);
    const second = await resolveSkillsPromptFragment(agent, logger);
    expect(first).toBe(second);
    expect(first).toContain('<skill name="deploy" loaded="true">Deploy.</skill>');
    expect(first).toContain('### Active Skills\n\n<skill_instructions name="deploy">\nDEPLOY BODY\n</skill_instructions>');
    expect(first).not.toContain('ghost');
    expect(warnings).toEqual(['skills.preload.unknown:ghost']);
    expect(await resolveSkillsPromptFragment({ name: 'none' }, logger)).toBe('');
  });
});

import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import type { Logger } from '../../../src/hooks/types.js';
import { fileSystemSkillProvider } from '../../../src/skills/index.js';
import type { SystemMessage } from '../../../src/types/message.js';
import type { SkillProvider } from '../../../src/types/skill.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, scriptedLLM, toolResults } from '../executor/executor-test-kit.js';

const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
const logger: Logger = { info: () => {}, error: () => {}, warn: (message, fields) => void warnings.push({ message, ...(fields === undefined ? {} : { fields }) }) };

const inCodeAgent = defineAgent({
  name: 'skilled_agent',
  systemPrompt: 'You are an operator.',
  maxSteps: 4,
  skills: [
    {
      name: 'pdf-processing',
      description: 'Extract text and tables from PDFs. Use when working with PDF files.',
      body: '# PDF processing\nRun pdftotext first.',
      resources: { 'references/forms.md': 'form line 1\nform line 2\nform line 3\nform line 4\n' },
    },
    { name: 'deploy-runbook', description: 'How to deploy the service.', body: '# Deploy\nTag, build, roll out.' },
  ],
  preloadSkills: ['deploy-runbook', 'no-such-skill'],
  memory: { note: 'unused on DBOS' },
});

const llm = scriptedLLM();
let runtime: TestRuntime;
let skillsRoot: string;
beforeAll(async () => {
  skillsRoot = await mkdtemp(join(tmpdir(), 'helix-skills-it-'));
  await mkdir(join(skillsRoot, 'csv', 'scripts'), { recursive: true });
  await writeFile(join(skillsRoot, 'csv', 'SKILL.md'), '---\nname: csv-cleaning\ndescription: Clean CSV exports.\n---\n# CSV\nNormalise the header row.\n');
  await writeFile(join(skillsRoot, 'csv', 'scripts', 'clean.py'), 'import csv\nprint("clean")\n');
  await writeFile(join(skillsRoot, 'outside.txt'), 'not for the model');
  runtime = await startTestRuntime('skills', llm.adapter, { logger });
});
afterAll(async () => {
  await runtime?.shutdown();
  await rm(skillsRoot, { recursive: true, force: true });
});

describe('skills on the durable loop', () => {
  it('puts the catalog in the system prompt, loads bodies with skill_loaded, reads ranges and refuses traversal', async () => {
    llm.use((input) => {
      if (input.step === 1) return { type: 'tool_calls', toolCalls: [{ id: 'load-1', name: 'load_skill', arguments: { name: 'pdf-processing' } }] };
      if (input.step === 2) {
        return {
          type: 'tool_calls',
          toolCalls: [
            { id: 'read-1', name: 'read_skill_file', arguments: { name: 'pdf-processing', path: 'references/forms.md', startLine: 2, endLine: 3 } },
            { id: 'read-2', name: 'read_skill_file', arguments: { name: 'pdf-processing', path: '../../../../etc/passwd' } },
            { id: 'load-2', name: 'load_skill', arguments: { name: 'unknown-skill' } },
          ],
        };
      }
      return { type: 'text', text: 'done' };
    });
    const handle = await runtime.executor.execute(inCodeAgent, 'Read the PDF form.', { sessionId: 'skills-in-code' });
    const [chunks, result] = await Promise.all([collectChunks(handle), handle.result()]);
    expect(result).toMatchObject({ status: 'completed', output: 'done' });

    const calls = llm.adapter.calls;
    expect(calls).toHaveLength(3);
    const system = calls[0]!.messages[0] as SystemMessage;
    expect(system.role).toBe('system');
    expect(system.content.startsWith('You are an operator.\n\n## Skills\n')).toBe(true);
    expect(system.content).toContain('A Skill is NOT a tool');
    expect(system.content).toContain(
      '<available_skills>\n<skill name="deploy-runbook" loaded="true">How to deploy the service.</skill>\n' +
        '<skill name="pdf-processing">Extract text and tables from PDFs. Use when working with PDF files.</skill>\n</available_skills>',
    );
    expect(system.content).toContain('### Active Skills\n\n<skill_instructions name="deploy-runbook">\n# Deploy\nTag, build, roll out.\n</skill_instructions>');
    expect(system.content).not.toContain('no-such-skill');
    // Byte-stable across steps: loading a skill never changes the prompt prefix.
    for (const call of calls) expect(call.messages[0]).toEqual(system);
    expect(calls[0]!.tools.map((tool) => tool.name)).toEqual(['load_skill', 'read_skill_file']);

    const afterLoad = toolResults(calls[1]!.messages);
    expect(afterLoad).toEqual([
      expect.objectContaining({
        toolCallId: 'load-1',
        content: '# PDF processing\nRun pdftotext first.\n\nFiles of this skill (read them with read_skill_file):\n- references/forms.md',
      }),
    ]);
    const afterRead = toolResults(calls[2]!.messages).slice(1);
    expect(afterRead.map((message) => [message.toolCallId, message.content])).toEqual([
      ['read-1', 'form line 2\nform line 3\n'],
      ['read-2', { error: "Refused: the path must be relative and stay inside the skill's directory." }],
      ['load-2', { error: 'There is no skill named "unknown-skill". Available skills: deploy-runbook, pdf-processing.' }],
    ]);

    const skillEvents = chunks.filter((chunk) => chunk.type === 'custom' && chunk.eventName === 'skill_loaded');
    expect(skillEvents).toEqual([expect.objectContaining({ type: 'custom', eventName: 'skill_loaded', data: { name: 'pdf-processing' }, step: 1 })]);
  });

  it('warns once per agent about an unknown preloaded skill and about memory, however many runs', async () => {
    llm.use(() => ({ type: 'text', text: 'again' }));
    const handle = await runtime.executor.execute(inCodeAgent, 'Again.', { sessionId: 'skills-in-code-2' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect(warnings.filter((warning) => warning.message === 'skills.preload.unknown')).toEqual([
      { message: 'skills.preload.unknown', fields: { agentType: 'skilled_agent', skill: 'no-such-skill' } },
    ]);
    expect(warnings.filter((warning) => warning.message === 'agent.memory.unused')).toEqual([
      { message: 'agent.memory.unused', fields: expect.objectContaining({ agentType: 'skilled_agent' }) },
    ]);
    expect(JSON.stringify(warnings)).not.toContain('unused on DBOS');
  });

  it('serves a filesystem provider (SKILL.md directories) from inside the steps', async () => {
    const agent = defineAgent({ name: 'fs_skilled_agent', systemPrompt: 'Clean data.', maxSteps: 3, skills: fileSystemSkillProvider({ roots: [skillsRoot] }) });
    llm.use((input) => {
      if (input.step === 1) {
        return {
          type: 'tool_calls',
          toolCalls: [
            { id: 'fs-load', name: 'load_skill', arguments: { name: 'csv-cleaning' } },
            { id: 'fs-read', name: 'read_skill_file', arguments: { name: 'csv-cleaning', path: 'scripts/clean.py', endLine: 1 } },
            { id: 'fs-escape', name: 'read_skill_file', arguments: { name: 'csv-cleaning', path: 'scripts/../../outside.txt' } },
          ],
        };
      }
      return { type: 'text', text: 'cleaned' };
    });
    const handle = await runtime.executor.execute(agent, 'Clean it.', { sessionId: 'skills-fs' });
    const [chunks, result] = await Promise.all([collectChunks(handle), handle.result()]);
    expect(result).toMatchObject({ status: 'completed', output: 'cleaned' });
    const [first, second] = llm.adapter.calls;
    expect((first!.messages[0] as SystemMessage).content).toContain('<skill name="csv-cleaning">Clean CSV exports.</skill>');
    expect(toolResults(second!.messages).map((message) => [message.toolCallId, message.content])).toEqual([
      ['fs-load', '# CSV\nNormalise the header row.\n\nFiles of this skill (read them with read_skill_file):\n- scripts/clean.py'],
      ['fs-read', 'import csv\n'],
      ['fs-escape', { error: "Refused: the path must be relative and stay inside the skill's directory." }],
    ]);
    expect(chunks.filter((chunk) => chunk.type === 'custom')).toEqual([expect.objectContaining({ eventName: 'skill_loaded', data: { name: 'csv-cleaning' } })]);
  });

  it('refuses a symbolic link out of the skill and warns once about a broken skill in a run of several steps', async () => {
    const root = await mkdtemp(join(tmpdir(), 'helix-skills-links-'));
    await mkdir(join(root, 'ops', 'references'), { recursive: true });
    await writeFile(join(root, 'ops', 'SKILL.md'), '---\nname: ops\ndescription: Operate.\n---\nOperate carefully.\n');
    await writeFile(join(root, 'ops', 'references', 'runbook.md'), 'step 1\n');
    await symlink(join(skillsRoot, 'outside.txt'), join(root, 'ops', 'references', 'leak.md'));
    await mkdir(join(root, 'broken'));
    await writeFile(join(root, 'broken', 'SKILL.md'), 'no frontmatter');
    const agent = defineAgent({ name: 'linked_skills_agent', systemPrompt: 'Operate.', maxSteps: 5, skills: fileSystemSkillProvider({ roots: [root], logger }) });
    llm.use((input) => {
      if (input.step === 1) return { type: 'tool_calls', toolCalls: [{ id: 'l-load', name: 'load_skill', arguments: { name: 'ops' } }] };
      if (input.step === 2) return { type: 'tool_calls', toolCalls: [{ id: 'l-leak', name: 'read_skill_file', arguments: { name: 'ops', path: 'references/leak.md' } }] };
      if (input.step === 3) return { type: 'tool_calls', toolCalls: [{ id: 'l-read', name: 'read_skill_file', arguments: { name: 'ops', path: 'references/runbook.md' } }] };
      return { type: 'text', text: 'operated' };
    });
    const handle = await runtime.executor.execute(agent, 'Operate.', { sessionId: 'skills-links' });
    expect(await handle.result()).toMatchObject({ status: 'completed', output: 'operated' });
    const { messages } = await runtime.stateStore.getMessages('skills-links');
    expect(toolResults(messages).map((message) => [message.toolCallId, message.content])).toEqual([
      ['l-load', 'Operate carefully.\n\nFiles of this skill (read them with read_skill_file):\n- references/runbook.md'],
      ['l-leak', { error: "Refused: the path must be relative and stay inside the skill's directory." }],
      ['l-read', 'step 1\n'],
    ]);
    expect(JSON.stringify(messages)).not.toContain('not for the model');
    expect(warnings.filter((warning) => warning.message === 'skills.skipped')).toEqual([
      { message: 'skills.skipped', fields: { directory: 'broken', reason: 'SKILL.md must start with YAML frontmatter between "---" lines.' } },
    ]);
    await rm(root, { recursive: true, force: true });
  });

  it('replays from checkpoints: re-executing the workflow reads no skill and calls no model again', async () => {
    const root = await mkdtemp(join(tmpdir(), 'helix-skills-replay-'));
    await mkdir(join(root, 'notes'));
    await writeFile(join(root, 'notes', 'SKILL.md'), '---\nname: note-taking\ndescription: Take notes.\n---\nWrite short notes.\n');
    await writeFile(join(root, 'notes', 'template.md'), 'Title\nBody\n');
    const reads = { listSkills: 0, getSkill: 0, readResource: 0 };
    const files = fileSystemSkillProvider({ roots: [root] });
    const counting: SkillProvider = {
      listSkills: () => ((reads.listSkills += 1), files.listSkills()),
      getSkill: (name) => ((reads.getSkill += 1), files.getSkill(name)),
      readResource: (name, path, range) => ((reads.readResource += 1), files.readResource(name, path, range)),
    };
    const agent = defineAgent({ name: 'replayed_skilled_agent', systemPrompt: 'Take notes.', maxSteps: 3, skills: counting });
    llm.use((input) =>
      input.step === 1
        ? { type: 'tool_calls', toolCalls: [{ id: 'r-load', name: 'load_skill', arguments: { name: 'note-taking' } }, { id: 'r-read', name: 'read_skill_file', arguments: { name: 'note-taking', path: 'template.md' } }] }
        : { type: 'text', text: 'noted' },
    );
    const handle = await runtime.executor.execute(agent, 'Take a note.', { sessionId: 'skills-replay' });
    const first = await handle.result();
    expect(first).toMatchObject({ status: 'completed', output: 'noted' });
    const readsBefore = { ...reads };
    expect(readsBefore).toEqual({ listSkills: 2, getSkill: 1, readResource: 1 });
    const callsBefore = llm.adapter.calls.length;

    // The skill files are gone: a replay that read them again would see no skills at all.
    await rm(root, { recursive: true, force: true });
    const steps = (await DBOS.listWorkflowSteps(handle.workflowId)) ?? [];
    const startStep = Math.max(-1, ...steps.map((step) => step.functionID)) + 1;
    const replayed = await (await DBOS.rewindWorkflow(handle.workflowId, { startStep })).getResult();
    expect(replayed).toMatchObject({ status: 'completed', output: 'noted' });
    expect(reads).toEqual(readsBefore);
    expect(llm.adapter.calls).toHaveLength(callsBefore);
    const { messages } = await runtime.stateStore.getMessages('skills-replay');
    expect(toolResults(messages).map((message) => message.content)).toEqual(['Write short notes.\n\nFiles of this skill (read them with read_skill_file):\n- template.md', 'Title\nBody\n']);
  });
});

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collectEffectiveTools, defineAgent, defineTool } from '../../../src/agent/index.js';
import type { ServerTool } from '../../../src/agent/index.js';
import { anthropicCache } from '../../../src/llm/anthropic-cache.js';
import { inCodeSkillProvider } from '../../../src/skills/index.js';

const skills = [{ name: 'deploy-runbook', description: 'How to deploy.', body: '# Deploy' }];
const echo = defineTool({ name: 'echo', description: 'Echo', parameters: z.object({ text: z.string() }), execute: async ({ text }) => text });

describe('defineAgent: skills', () => {
  it('wraps in-code definitions in a provider and injects load_skill and read_skill_file after the user tools', async () => {
    const agent = defineAgent({ name: 'ops', systemPrompt: 'x', tools: [echo], skills, preloadSkills: ['deploy-runbook'] });
    expect(collectEffectiveTools(agent).map((tool) => tool.name)).toEqual(['echo', 'load_skill', 'read_skill_file']);
    expect(await agent.skills?.listSkills()).toEqual([{ name: 'deploy-runbook', description: 'How to deploy.' }]);
    expect(agent.preloadSkills).toEqual(['deploy-runbook']);
    expect(collectEffectiveTools(agent).filter((tool) => tool.kind === 'server').every((tool) => (tool as ServerTool).finishWith === false)).toBe(true);
  });

  it('keeps a SkillProvider as it is and injects nothing without skills', () => {
    const provider = inCodeSkillProvider(skills);
    expect(defineAgent({ name: 'ops', systemPrompt: 'x', skills: provider }).skills).toBe(provider);
    expect(collectEffectiveTools(defineAgent({ name: 'plain', systemPrompt: 'x', tools: [echo] })).map((tool) => tool.name)).toEqual(['echo']);
  });

  const reservedTool = (name: string) => Object.freeze({ ...echo, name });
  const refused: Array<[string, () => unknown, RegExp]> = [
    ['skills of the wrong shape', () => defineAgent({ name: 'a', systemPrompt: 'x', skills: 'skills' as never }), /skills must be an array/],
    ['a skill name with an underscore', () => defineAgent({ name: 'a', systemPrompt: 'x', skills: [{ name: 'load_x', description: 'd', body: 'b' }] }), /\^\[a-z0-9-\]/],
    ['an upper-case skill name', () => defineAgent({ name: 'a', systemPrompt: 'x', skills: [{ name: 'Deploy', description: 'd', body: 'b' }] }), /\^\[a-z0-9-\]/],
    ['duplicate skill names', () => defineAgent({ name: 'a', systemPrompt: 'x', skills: [...skills, ...skills] }), /two skills are named/],
    ['a skill without description', () => defineAgent({ name: 'a', systemPrompt: 'x', skills: [{ name: 'a', description: ' ', body: 'b' }] }), /description/],
    ['a resource escaping the skill', () => defineAgent({ name: 'a', systemPrompt: 'x', skills: [{ name: 'a', description: 'd', body: 'b', resources: { '../x': 'y' } }] }), /leaves the skill/],
    ['preloadSkills without skills', () => defineAgent({ name: 'a', systemPrompt: 'x', preloadSkills: ['deploy-runbook'] }), /needs skills/],
    ['preloadSkills not an array', () => defineAgent({ name: 'a', systemPrompt: 'x', skills, preloadSkills: 'deploy-runbook' as never }), /array of skill names/],
    ['a malformed preload name', () => defineAgent({ name: 'a', systemPrompt: 'x', skills, preloadSkills: ['Bad Name'] }), /preloadSkills entries/],
    ['a hand-built user tool named load_skill', () => defineAgent({ name: 'a', systemPrompt: 'x', tools: [reservedTool('load_skill')] }), /reserved tool name/],
    ['a hand-built user tool named read_skill_file', () => defineAgent({ name: 'a', systemPrompt: 'x', skills, tools: [reservedTool('read_skill_file')] }), /reserved tool name/],
    ['defineTool named load_skill', () => defineTool({ name: 'load_skill', description: 'd', parameters: z.object({}), execute: async () => 1 }), /reserved/],
    ['an unknown cache strategy', () => defineAgent({ name: 'a', systemPrompt: 'x', llmConfig: { cache: { type: 'gemini' } as never } }), /anthropicCache/],
    ['an untyped cache object', () => defineAgent({ name: 'a', systemPrompt: 'x', llmConfig: { cache: { strategy: 'ephemeral' } as never } }), /anthropicCache/],
  ];
  it.each(refused)('refuses %s at definition time', (_label, define, message) => {
    expect(define).toThrow(message);
    expect(define).toThrow(expect.objectContaining({ name: 'ConfigurationError' }));
  });

  it('accepts anthropicCache() and arrays of strategies', () => {
    expect(defineAgent({ name: 'a', systemPrompt: 'x', llmConfig: { cache: anthropicCache() } }).llmConfig.cache).toEqual({ type: 'anthropic' });
    expect(() => defineAgent({ name: 'a', systemPrompt: 'x', llmConfig: { cache: [anthropicCache({ ttl: '1h' })] } })).not.toThrow();
    expect(() => anthropicCache({ ttl: '2h' as never })).toThrow(/ttl/);
  });
});

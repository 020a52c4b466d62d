import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  collectEffectiveTools,
  COMPANION_TOOL_PREFIX,
  createSubAgentTool,
  defineAgent,
  defineTool,
  isCompanionTool,
  isSubAgentTool,
  SUBAGENT_TOOL_PREFIX,
  type CompanionTool,
} from '../../../src/agent/index.js';
import { ConfigurationError } from '../../../src/errors/index.js';

const summarizer = defineAgent({
  name: 'summarizer',
  description: 'Summarizes texts',
  systemPrompt: 'Summarize.',
  outputSchema: z.object({ summary: z.string() }),
});

describe('createSubAgentTool', () => {
  it('names the tool subagent__<agent> and marks it', () => {
    const tool = createSubAgentTool(summarizer, z.object({ texts: z.array(z.string()) }));
    expect(tool.name).toBe(`${SUBAGENT_TOOL_PREFIX}summarizer`);
    expect(tool).toMatchObject({ kind: 'subagent', agentType: 'summarizer', description: 'Summarizes texts', _isSubAgentTool: true });
    expect(tool.agent).toBe(summarizer);
    expect(isSubAgentTool(tool)).toBe(true);
    expect(isSubAgentTool(tool.name)).toBe(true);
    expect(Object.isFrozen(tool)).toBe(true);
  });

  it('uses the given description', () => {
    expect(createSubAgentTool(summarizer, z.object({}), { description: 'Shorten' }).description).toBe('Shorten');
  });

  it.each([
    ['an agent without outputSchema', () => createSubAgentTool(defineAgent({ name: 'plain', systemPrompt: 'x' }), z.object({})), /outputSchema/],
    ['a non-object input schema', () => createSubAgentTool(summarizer, z.string()), /inputSchema/],
    ['a non-zod input schema', () => createSubAgentTool(summarizer, {} as z.ZodType), /inputSchema/],
  ])('rejects %s', (_label, run, message) => {
    expect(run).toThrow(message);
    try {
      run();
    } catch (error) {
      expect(ConfigurationError.isInstance(error) && error.code).toBe('INVALID_TOOL_CONFIG');
    }
  });
});

describe('companion tools', () => {
  const worker = defineAgent({ name: 'worker', systemPrompt: 'x', outputSchema: z.object({ ok: z.boolean() }) });
  const parent = defineAgent({
    name: 'parent',
    systemPrompt: 'x',
    persistentAgents: [
      { agent: worker, mode: 'blocking', description: 'Does work' },
      { agent: summarizer, mode: 'non-blocking', name: 'notes' },
    ],
  });
  const companions = collectEffectiveTools(parent).filter((tool): tool is CompanionTool => tool.kind === 'companion');

  it('are marked and prefixed', () => {
    expect(companions).toHaveLength(6);
    for (const tool of companions) {
      expect(tool.name).toBe(`${COMPANION_TOOL_PREFIX}${tool.companionAction}`);
      expect(isCompanionTool(tool)).toBe(true);
      expect(isCompanionTool(tool.name)).toBe(true);
    }
    const plain = defineTool({ name: 'x', description: 'x', parameters: z.object({}), execute: async () => 1 });
    expect(isCompanionTool(plain)).toBe(false);
    expect(isSubAgentTool(plain)).toBe(false);
  });

  it('spawnAgent only accepts configured agent names and lists them in its description', () => {
    const spawn = companions.find((tool) => tool.companionAction === 'spawnAgent');
    expect(spawn?.description).toContain('- worker (blocking: you get its result): Does work');
    expect(spawn?.description).toContain('- notes (non-blocking');
    expect(spawn?.parameters.safeParse({ agentType: 'notes', message: 'go' }).success).toBe(true);
    expect(spawn?.parameters.safeParse({ agentType: 'other', message: 'go' }).success).toBe(false);
    expect(spawn?.parameters.safeParse({ agentType: 'worker', message: 'go', name: 'bad name' }).success).toBe(false);
  });

  it('sendMessage requires a child name and message', () => {
    const send = companions.find((tool) => tool.companionAction === 'sendMessage');
    expect(send?.parameters.safeParse({ name: 'worker-1', message: 'more' }).success).toBe(true);
    expect(send?.parameters.safeParse({ name: 'worker-1' }).success).toBe(false);
  });
});

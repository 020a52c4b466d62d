import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';

import {
  collectEffectiveTools,
  createSubAgentTool,
  defineAgent,
  defineTool,
  FINISH_TOOL_NAME,
  type AgentConfig,
} from '../../../src/agent/index.js';
import { ConfigurationError } from '../../../src/errors/index.js';

const search = defineTool({ name: 'search', description: 'Search', parameters: z.object({ q: z.string() }), execute: async () => [] });
const worker = defineAgent({ name: 'worker', systemPrompt: 'Work.', outputSchema: z.object({ done: z.boolean() }) });

function agentError(run: () => unknown): ConfigurationError {
  try {
    run();
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigurationError');
}

describe('defineAgent', () => {
  it('applies defaults and freezes the config', () => {
    const agent = defineAgent({ name: 'assistant', systemPrompt: 'Help.' });
    expect(agent.maxSteps).toBe(10);
    expect(agent.llmConfig).toEqual({});
    expect(agent.tools).toEqual([]);
    expect(agent.persistentAgents).toEqual([]);
    expect(Object.isFrozen(agent)).toBe(true);
    expect(Object.isFrozen(agent.tools)).toBe(true);
  });

  it('injects __finish__ with the outputSchema as parameters only when an outputSchema exists', () => {
    const outputSchema = z.object({ answer: z.string() });
    const withOutput = defineAgent({ name: 'a', systemPrompt: 'x', tools: [search], outputSchema });
    const tools = collectEffectiveTools(withOutput);
    expect(tools.map((tool) => tool.name)).toEqual(['search', FINISH_TOOL_NAME]);
    expect(tools[1]?.parameters).toBe(outputSchema);
    expect(withOutput.tools.map((tool) => tool.name)).toEqual(['search']);
    expect(collectEffectiveTools(defineAgent({ name: 'b', systemPrompt: 'x', tools: [search] })).map((tool) => tool.name)).toEqual(['search']);
  });

  it('keeps typed state and output schemas', () => {
    const agent = defineAgent({
      name: 'typed',
      systemPrompt: (state) => `count=${state.count}`,
      stateSchema: z.object({ count: z.number().default(0) }),
      outputSchema: z.object({ answer: z.string() }),
    });
    const generic: AgentConfig<z.ZodType<{ count: number }>, z.ZodType<{ answer: string }>> = agent;
    expect(typeof generic.systemPrompt === 'function' ? generic.systemPrompt({ count: 2 }) : '').toBe('count=2');
  });

  it('resolves persistent agents and injects companion tools', () => {
    const nonBlocking = defineAgent({ name: 'parent', systemPrompt: 'x', persistentAgents: [{ agent: worker, mode: 'non-blocking' }] });
    expect(nonBlocking.persistentAgents).toEqual([{ agent: worker, mode: 'non-blocking', name: 'worker', agentType: 'worker' }]);
    expect(collectEffectiveTools(nonBlocking).map((tool) => tool.name)).toEqual([
      'companion__spawnAgent',
      'companion__sendMessage',
      'companion__listChildren',
      'companion__getChildStatus',
      'companion__terminateChild',
    ]);
    const blocking = defineAgent({
      name: 'parent2',
      systemPrompt: 'x',
      persistentAgents: [{ agent: worker, mode: 'non-blocking' }, { agent: worker, mode: 'blocking', name: 'helper', description: 'Helps' }],
    });
    expect(collectEffectiveTools(blocking).map((tool) => tool.name)).toContain('companion__waitForResult');
  });

  const rejected: Array<[string, () => unknown, RegExp]> = [
    ['an invalid name', () => defineAgent({ name: 'has space', systemPrompt: 'x' }), /name must match/],
    ['a 55-character name', () => defineAgent({ name: 'a'.repeat(55), systemPrompt: 'x' }), /name must match/],
    ['maxSteps 0', () => defineAgent({ name: 'a', systemPrompt: 'x', maxSteps: 0 }), /maxSteps/],
    ['negative maxSteps', () => defineAgent({ name: 'a', systemPrompt: 'x', maxSteps: -3 }), /maxSteps/],
    ['fractional maxSteps', () => defineAgent({ name: 'a', systemPrompt: 'x', maxSteps: 2.5 }), /maxSteps/],
    ['a missing systemPrompt', () => defineAgent({ name: 'a', systemPrompt: undefined as unknown as string }), /systemPrompt/],
    ['a non-zod outputSchema', () => defineAgent({ name: 'a', systemPrompt: 'x', outputSchema: {} as z.ZodType }), /outputSchema/],
    ['a non-object outputSchema', () => defineAgent({ name: 'a', systemPrompt: 'x', outputSchema: z.string() }), /outputSchema/],
    ['a non-zod stateSchema', () => defineAgent({ name: 'a', systemPrompt: 'x', stateSchema: { parse: () => ({}) } as unknown as z.ZodType }), /stateSchema/],
    ['a non-function stopWhen', () => defineAgent({ name: 'a', systemPrompt: 'x', stopWhen: true as unknown as () => boolean }), /stopWhen/],
    ['a plain object tool', () => defineAgent({ name: 'a', systemPrompt: 'x', tools: [{ name: 'x' } as unknown as typeof search] }), /defineTool/],
    ['duplicate tool names', () => defineAgent({ name: 'a', systemPrompt: 'x', tools: [search, search] }), /two tools are named "search"/],
    [
      'the same sub-agent twice',
      () => defineAgent({ name: 'a', systemPrompt: 'x', tools: [createSubAgentTool(worker, z.object({})), createSubAgentTool(worker, z.object({}))] }),
      /subagent__worker/,
    ],
    ['a bad persistent mode', () => defineAgent({ name: 'a', systemPrompt: 'x', persistentAgents: [{ agent: worker, mode: 'eager' as 'blocking' }] }), /mode/],
    [
      'a persistent agent without outputSchema',
      () => defineAgent({ name: 'a', systemPrompt: 'x', persistentAgents: [{ agent: defineAgent({ name: 'plain', systemPrompt: 'x' }), mode: 'blocking' }] }),
      /outputSchema/,
    ],
    [
      'duplicate persistent names',
      () => defineAgent({ name: 'a', systemPrompt: 'x', persistentAgents: [{ agent: worker, mode: 'blocking' }, { agent: worker, mode: 'non-blocking' }] }),
      /used twice/,
    ],
    ['an invalid persistent name', () => defineAgent({ name: 'a', systemPrompt: 'x', persistentAgents: [{ agent: worker, mode: 'blocking', name: 'a b' }] }), /name must match/],
  ];

  it.each(rejected)('rejects %s with INVALID_AGENT_CONFIG', (_label, run, message) => {
    const error = agentError(run);
    expect(error.code).toBe('INVALID_AGENT_CONFIG');
    expect(error.message).toMatch(message);
  });
});

describe('AgentConfig typing', () => {
  function typesOf<TState, TOutput>(agent: AgentConfig<z.ZodType<TState>, z.ZodType<TOutput>>): { state?: TState; output?: TOutput; name: string } {
    return { name: agent.name };
  }

  it('lets executors infer state and output types from an agent', () => {
    const typed = defineAgent({
      name: 'typed2',
      systemPrompt: 'x',
      stateSchema: z.object({ count: z.number().default(0) }),
      outputSchema: z.object({ answer: z.string() }),
    });
    const inferred = typesOf(typed);
    expectTypeOf(inferred.state).toEqualTypeOf<{ count: number } | undefined>();
    expectTypeOf(inferred.output).toEqualTypeOf<{ answer: string } | undefined>();
    const untyped = typesOf(defineAgent({ name: 'untyped', systemPrompt: 'x' }));
    expectTypeOf(untyped.state).toEqualTypeOf<Record<string, unknown> | undefined>();
    expect(inferred.name).toBe('typed2');
  });
});

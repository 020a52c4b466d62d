import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { defineTool, isValidToolName, type ClientTool, type ServerTool } from '../../../src/agent/index.js';
import { ConfigurationError } from '../../../src/errors/index.js';

const parameters = z.object({ city: z.string() });
const execute = async ({ city }: { city: string }) => ({ city });

function definitionError(run: () => unknown): ConfigurationError {
  try {
    run();
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigurationError');
}

describe('defineTool', () => {
  it('returns a frozen server tool with defaults', () => {
    const tool = defineTool({ name: 'get_weather', description: 'Weather', parameters, execute });
    expect(tool.kind).toBe('server');
    expect(tool.finishWith).toBe(false);
    expect(tool.requireApproval).toBeUndefined();
    expect(Object.isFrozen(tool)).toBe(true);
    expect(tool.parameters).toBe(parameters);
  });

  it('returns a client tool for execute: client', () => {
    const tool: ClientTool = defineTool({ name: 'pick', description: 'Pick', parameters, execute: 'client', timeoutMs: 5_000 });
    expect(tool).toMatchObject({ kind: 'client', execute: 'client', timeoutMs: 5_000 });
  });

  it('keeps requireApproval, finishWith and timeoutMs', () => {
    const predicate = ({ city }: { city: string }) => city === 'Oslo';
    const gated: ServerTool = defineTool({ name: 'pay', description: 'Pay', parameters, execute, requireApproval: predicate });
    expect(gated.requireApproval).toBe(predicate);
    const finishing = defineTool({ name: 'done', description: 'Done', parameters, execute, finishWith: true, timeoutMs: 10 });
    expect(finishing).toMatchObject({ finishWith: true, timeoutMs: 10 });
  });

  it('allows requireApproval: false together with finishWith', () => {
    expect(defineTool({ name: 'ok', description: 'Ok', parameters, execute, requireApproval: false, finishWith: true }).finishWith).toBe(true);
  });

  it('infers the input type of execute from parameters', async () => {
    const tool = defineTool({
      name: 'typed',
      description: 'Typed',
      parameters: z.object({ count: z.number().default(1) }),
      execute: async (input) => input.count * 2,
    });
    const controller = new AbortController();
    const result: number = await tool.execute(
      { count: 4 },
      {
        getState: () => ({}),
        updateState: () => undefined,
        emit: () => undefined,
        abortSignal: controller.signal,
        sessionId: 's',
        toolCallId: 'c',
        agentType: 'a',
      },
    );
    expect(result).toBe(8);
  });

  const rejected: Array<[string, () => unknown, RegExp]> = [
    ['client + finishWith', () => defineTool({ name: 'a', description: 'd', parameters, execute: 'client', finishWith: true as false }), /finishWith/],
    ['client + requireApproval', () => defineTool({ name: 'a', description: 'd', parameters, execute: 'client', requireApproval: true as false }), /requireApproval/],
    ['requireApproval + finishWith', () => defineTool({ name: 'a', description: 'd', parameters, execute, requireApproval: true, finishWith: true }), /requireApproval/],
    ['predicate approval + finishWith', () => defineTool({ name: 'a', description: 'd', parameters, execute, requireApproval: () => true, finishWith: true }), /requireApproval/],
    ['__finish__', () => defineTool({ name: '__finish__', description: 'd', parameters, execute }), /reserved/],
    ['subagent__ prefix', () => defineTool({ name: 'subagent__x', description: 'd', parameters, execute }), /subagent__/],
    ['companion__ prefix', () => defineTool({ name: 'companion__spawnAgent', description: 'd', parameters, execute }), /companion__/],
    ['load_skill', () => defineTool({ name: 'load_skill', description: 'd', parameters, execute }), /reserved/],
    ['read_skill_file', () => defineTool({ name: 'read_skill_file', description: 'd', parameters, execute }), /reserved/],
    ['space in name', () => defineTool({ name: 'get weather', description: 'd', parameters, execute }), /must match/],
    ['65-character name', () => defineTool({ name: 'a'.repeat(65), description: 'd', parameters, execute }), /must match/],
    ['empty name', () => defineTool({ name: '', description: 'd', parameters, execute }), /must match/],
    ['non-zod parameters', () => defineTool({ name: 'a', description: 'd', parameters: { type: 'object' } as unknown as typeof parameters, execute }), /zod schema/],
    ['non-object parameters', () => defineTool({ name: 'a', description: 'd', parameters: z.string(), execute: async () => 1 }), /object schema/],
    ['unrepresentable parameters', () => defineTool({ name: 'a', description: 'd', parameters: z.object({ at: z.date() }), execute: async () => 1 }), /JSON Schema/],
    ['missing description', () => defineTool({ name: 'a', description: '  ', parameters, execute }), /description/],
    ['non-function execute', () => defineTool({ name: 'a', description: 'd', parameters, execute: 'server' as unknown as typeof execute }), /execute/],
    ['zero timeoutMs', () => defineTool({ name: 'a', description: 'd', parameters, execute, timeoutMs: 0 }), /timeoutMs/],
    ['fractional timeoutMs', () => defineTool({ name: 'a', description: 'd', parameters, execute, timeoutMs: 1.5 }), /timeoutMs/],
    ['string requireApproval', () => defineTool({ name: 'a', description: 'd', parameters, execute, requireApproval: 'yes' as unknown as boolean }), /requireApproval/],
  ];

  it.each(rejected)('rejects %s with INVALID_TOOL_CONFIG', (_label, run, message) => {
    const error = definitionError(run);
    expect(error.code).toBe('INVALID_TOOL_CONFIG');
    expect(error.message).toMatch(message);
  });
});

describe('isValidToolName', () => {
  it.each([
    ['search', true],
    ['search-web_2', true],
    ['a'.repeat(64), true],
    ['a'.repeat(65), false],
    ['dot.name', false],
    ['', false],
    [42, false],
  ])('%s → %s', (name, valid) => {
    expect(isValidToolName(name)).toBe(valid);
  });
});

import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { createSubAgentTool, defineAgent, defineTool, defineTransactionalTool, firstTransactionalToolName, isTransactionalTool } from '../../../src/agent/index.js';
import { ConfigurationError } from '../../../src/errors/index.js';

const parameters = z.object({ sku: z.string() });
const execute = async ({ sku }: { sku: string }) => ({ sku });

function definitionError(run: () => unknown): ConfigurationError {
  try {
    run();
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigurationError');
}

describe('defineTransactionalTool', () => {
  it('returns a frozen server tool marked transactional, with the server-tool options kept', () => {
    const tool = defineTransactionalTool({ name: 'place_order', description: 'Order', parameters, execute, finishWith: true, timeoutMs: 500 });
    expect(tool).toMatchObject({ kind: 'server', name: 'place_order', transactional: true, finishWith: true, timeoutMs: 500 });
    expect(Object.isFrozen(tool)).toBe(true);
    expect(isTransactionalTool(tool)).toBe(true);
    expect(isTransactionalTool(defineTool({ name: 'plain', description: 'Plain', parameters, execute }))).toBe(false);
  });

  it('refuses a client tool and validates like defineTool', () => {
    const client = definitionError(() => defineTransactionalTool({ name: 'ask', description: 'Ask', parameters, execute: 'client' } as never));
    expect(client.code).toBe('INVALID_TOOL_CONFIG');
    expect(client.message).toContain('execute');
    expect(definitionError(() => defineTransactionalTool({ name: '__finish__', description: 'x', parameters, execute })).code).toBe('INVALID_TOOL_CONFIG');
    expect(
      definitionError(() => defineTransactionalTool({ name: 'gated', description: 'x', parameters, execute, requireApproval: true, finishWith: true })).message,
    ).toContain('requireApproval');
  });

  it('finds a transactional tool in an agent or, recursively, in its sub-agents', () => {
    const orders = defineTransactionalTool({ name: 'place_order', description: 'Order', parameters, execute });
    const plain = defineTool({ name: 'lookup', description: 'Lookup', parameters, execute });
    const child = defineAgent({ name: 'buyer', systemPrompt: 'Buy.', tools: [orders], outputSchema: z.object({ done: z.boolean() }) });
    const parent = defineAgent({ name: 'planner', systemPrompt: 'Plan.', tools: [plain, createSubAgentTool(child, z.object({ item: z.string() }))] });
    expect(firstTransactionalToolName(parent)).toBe('place_order');
    expect(firstTransactionalToolName(defineAgent({ name: 'reader', systemPrompt: 'Read.', tools: [plain] }))).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { collectEffectiveTools, defineAgent, defineTool, toToolSchemas } from '../../../src/agent/index.js';

describe('toToolSchemas', () => {
  const search = defineTool({
    name: 'search',
    description: 'Search the web',
    parameters: z.object({ query: z.string().describe('What to look for'), limit: z.number().int().default(5) }),
    execute: async () => [],
  });

  it('converts zod parameters to input-side JSON Schema without $schema', () => {
    const [schema] = toToolSchemas([search]);
    expect(schema).toEqual({
      name: 'search',
      description: 'Search the web',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What to look for' },
          limit: { type: 'integer', default: 5, minimum: expect.any(Number) as number, maximum: expect.any(Number) as number },
        },
        required: ['query'],
      },
    });
  });

  it('includes __finish__ with the output schema', () => {
    const agent = defineAgent({ name: 'a', systemPrompt: 'x', tools: [search], outputSchema: z.object({ answer: z.string() }) });
    const schemas = toToolSchemas(collectEffectiveTools(agent));
    expect(schemas.map((schema) => schema.name)).toEqual(['search', '__finish__']);
    expect(schemas[1]?.inputSchema).toMatchObject({ type: 'object', required: ['answer'] });
  });

  it('returns fresh objects on every call', () => {
    const first = toToolSchemas([search])[0];
    if (first === undefined) throw new Error('no schema');
    (first.inputSchema as { type: string }).type = 'mutated';
    expect(toToolSchemas([search])[0]?.inputSchema.type).toBe('object');
  });
});

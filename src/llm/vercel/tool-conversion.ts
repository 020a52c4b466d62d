import { jsonSchema, tool } from 'ai';
import type { JSONSchema7, ToolSet } from 'ai';
import type { ToolSchema } from '../../types/llm.js';

/**
 * Converts our tool schemas into an AI SDK `ToolSet` of tools **without** `execute`, so `streamText`
 * returns the model's tool calls and the agent loop executes them in its own durable steps.
 *
 * The SDK does not validate arguments against these schemas (`jsonSchema()` without `validate`); the loop
 * validates them with the tool's zod schema and feeds failures back to the model.
 *
 * @example
 * const tools = toToolSet([{ name: 'search', description: 'Web search', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }]);
 * // tools.search has a description and an inputSchema, and no execute
 */
export function toToolSet(tools: readonly ToolSchema[]): ToolSet {
  const toolSet: ToolSet = {};
  for (const schema of tools) {
    toolSet[schema.name] = tool({
      description: schema.description,
      inputSchema: jsonSchema<Record<string, unknown>>(schema.inputSchema as JSONSchema7),
    });
  }
  return toolSet;
}

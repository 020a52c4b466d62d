import type { ToolSchema } from '../types/llm.js';
import type { AgentTool } from './tool-types.js';
import { toObjectJsonSchema } from './zod-schema.js';

/**
 * The tools as the LLM sees them: name, description and the JSON Schema of the parameters (zod 4's
 * `z.toJSONSchema`, input side, without `$schema`). Each call returns fresh objects the caller may mutate.
 *
 * @example
 * const input: LLMGenerateInput = { messages, tools: toToolSchemas(buildEffectiveTools(agent)), config: agent.llmConfig };
 */
export function toToolSchemas(tools: readonly AgentTool[]): ToolSchema[] {
  return tools.map((tool) => {
    const inputSchema = toObjectJsonSchema(tool.parameters);
    return {
      name: tool.name,
      description: tool.description,
      inputSchema: inputSchema === undefined ? { type: 'object', properties: {} } : structuredClone(inputSchema),
    };
  });
}

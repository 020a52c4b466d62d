import type { z } from 'zod';

import { ConfigurationError } from '../errors/index.js';
import type { AgentConfig } from './agent-types.js';
import type { SubAgentTool } from './tool-types.js';
import { SUBAGENT_TOOL_PREFIX, TOOL_NAME_PATTERN } from './tool-names.js';
import { isZodSchema, toObjectJsonSchema } from './zod-schema.js';

/**
 * Options of `createSubAgentTool`.
 *
 * @example
 * const options: SubAgentToolOptions = { description: 'Summarize a list of texts' };
 */
export interface SubAgentToolOptions {
  /** What the model reads. Default: the agent's description, or a generic delegation sentence. */
  description?: string;
}

/**
 * Create a tool that delegates to a child agent. The tool is named `subagent__${agent.name}`; the child
 * runs as its own session and its structured output becomes the tool result.
 *
 * @throws ConfigurationError `INVALID_TOOL_CONFIG` when the agent has no `outputSchema`, its name is too long
 *   for a tool name, or `inputSchema` is not a zod object schema.
 * @example
 * const summarize = createSubAgentTool(summarizer, z.object({ texts: z.array(z.string()) }), {
 *   description: 'Summarize a list of texts',
 * });
 */
export function createSubAgentTool<TSchema extends z.ZodType>(
  agent: AgentConfig<any, any>,
  inputSchema: TSchema,
  options: SubAgentToolOptions = {},
): SubAgentTool<TSchema> {
  if (typeof agent !== 'object' || agent === null || typeof agent.name !== 'string') {
    throw toolError('createSubAgentTool expects an agent created with defineAgent.');
  }
  const name = `${SUBAGENT_TOOL_PREFIX}${agent.name}`;
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw toolError(`Sub-agent "${agent.name}": its tool name "${name}" exceeds 64 characters; shorten the agent name.`, name);
  }
  if (agent.outputSchema === undefined) {
    throw toolError(`Sub-agent "${agent.name}" must declare an outputSchema: its output is the tool result.`, name);
  }
  if (!isZodSchema(inputSchema) || toObjectJsonSchema(inputSchema) === undefined) {
    throw toolError(`Sub-agent "${agent.name}": inputSchema must be a zod object schema representable as JSON Schema.`, name);
  }
  const description = options.description ?? agent.description ?? `Delegate a task to the "${agent.name}" agent and get its result.`;
  if (typeof description !== 'string' || description.trim() === '') {
    throw toolError(`Sub-agent "${agent.name}": description must be a non-empty string.`, name);
  }
  return Object.freeze({
    kind: 'subagent' as const,
    name,
    description,
    parameters: inputSchema,
    _isSubAgentTool: true as const,
    agent,
    agentType: agent.name,
  });
}

/**
 * True for a sub-agent tool, given the tool (checks its marker) or a tool name (checks the prefix).
 *
 * @example
 * if (isSubAgentTool(toolCall.name)) { const agentType = toolCall.name.slice(SUBAGENT_TOOL_PREFIX.length); }
 */
export function isSubAgentTool(toolOrName: unknown): boolean {
  if (typeof toolOrName === 'string') return toolOrName.startsWith(SUBAGENT_TOOL_PREFIX);
  return typeof toolOrName === 'object' && toolOrName !== null && (toolOrName as { _isSubAgentTool?: unknown })._isSubAgentTool === true;
}

function toolError(message: string, toolName?: string): ConfigurationError {
  return new ConfigurationError('INVALID_TOOL_CONFIG', message, toolName === undefined ? undefined : { toolName });
}

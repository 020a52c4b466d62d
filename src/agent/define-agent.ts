import type { z } from 'zod';

import { ConfigurationError } from '../errors/index.js';
import { toCacheStrategies } from '../orchestration/prompt-cache.js';
import { QUEUE_NAME_PATTERN } from '../orchestration/queue-placement.js';
import { toSkillProvider, validatePreloadSkills } from '../skills/agent-skills.js';
import type { AgentConfig, AgentDefinition, AgentToolInput } from './agent-types.js';
import { collectEffectiveTools } from './effective-tools.js';
import { resolvePersistentAgents } from './persistent-agent.js';
import { RESERVED_TOOL_NAMES } from './tool-names.js';
import { isZodSchema, toObjectJsonSchema } from './zod-schema.js';

/** Agent names leave room for the `subagent__` prefix inside the 64-character tool name limit. */
const AGENT_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,54}$/;
const DEFAULT_MAX_STEPS = 10;

/**
 * Define an agent. The definition is validated now and returned frozen; an `outputSchema` makes the
 * `__finish__` tool available to the model (see `buildEffectiveTools`).
 *
 * Options: `maxSteps` defaults to 10, `llmConfig` to `{}`, `tools` and `persistentAgents` to `[]`.
 *
 * @throws ConfigurationError `INVALID_AGENT_CONFIG` for an invalid name, system prompt, schema, maxSteps,
 *   stopWhen, hooks, queue or persistentAgents entry, a tool not built by defineTool/createSubAgentTool, two
 *   tools with the same name, an unknown `llmConfig.cache` strategy, invalid `skills` or `preloadSkills`.
 * @example
 * const assistant = defineAgent({
 *   name: 'assistant',
 *   systemPrompt: (state) => `You have answered ${state.count} questions.`,
 *   stateSchema: z.object({ count: z.number().default(0) }),
 *   outputSchema: z.object({ answer: z.string() }),
 *   tools: [weatherTool],
 * });
 */
export function defineAgent<
  TStateSchema extends z.ZodType = z.ZodType<Record<string, unknown>>,
  TOutputSchema extends z.ZodType = z.ZodType<unknown>,
>(definition: AgentDefinition<TStateSchema, TOutputSchema>): AgentConfig<TStateSchema, TOutputSchema> {
  if (typeof definition !== 'object' || definition === null) {
    throw agentError('defineAgent expects an options object with at least name and systemPrompt.');
  }
  const { name } = definition as { name: unknown };
  if (typeof name !== 'string' || !AGENT_NAME_PATTERN.test(name)) {
    throw agentError('Agent name must match ^[a-zA-Z0-9_-]{1,54}$ (it becomes part of tool names and workflow ids).');
  }
  const fail = (message: string): ConfigurationError => agentError(`Agent "${name}": ${message}`, name);

  if (typeof definition.systemPrompt !== 'string' && typeof definition.systemPrompt !== 'function') {
    throw fail('systemPrompt must be a string or a function (state) => string.');
  }
  if (definition.description !== undefined && typeof definition.description !== 'string') {
    throw fail('description must be a string.');
  }
  if (definition.outputSchema !== undefined) {
    if (!isZodSchema(definition.outputSchema) || toObjectJsonSchema(definition.outputSchema) === undefined) {
      throw fail('outputSchema must be a zod object schema representable as JSON Schema (it is the __finish__ arguments).');
    }
  }
  if (definition.stateSchema !== undefined && !isZodSchema(definition.stateSchema)) {
    throw fail('stateSchema must be a zod schema, e.g. z.object({ … }).');
  }
  const maxSteps = definition.maxSteps ?? DEFAULT_MAX_STEPS;
  if (typeof maxSteps !== 'number' || !Number.isInteger(maxSteps) || maxSteps <= 0) {
    throw fail('maxSteps must be a positive integer.');
  }
  if (definition.queue !== undefined && (typeof definition.queue !== 'string' || !QUEUE_NAME_PATTERN.test(definition.queue))) {
    throw fail('queue must be a DBOS queue name matching ^[A-Za-z0-9_.:-]{1,64}$.');
  }
  if (definition.stopWhen !== undefined && typeof definition.stopWhen !== 'function') {
    throw fail('stopWhen must be a function ({ stepCount, stepResult, customState }) => boolean.');
  }
  if (definition.hooks !== undefined && (typeof definition.hooks !== 'object' || definition.hooks === null)) {
    throw fail('hooks must be an object of hook functions.');
  }
  if (definition.llmConfig !== undefined && (typeof definition.llmConfig !== 'object' || definition.llmConfig === null)) {
    throw fail('llmConfig must be an object.');
  }
  if (definition.llmConfig?.cache !== undefined) {
    try {
      toCacheStrategies(definition.llmConfig.cache);
    } catch (error) {
      throw fail(`${(error as Error).message}`);
    }
  }
  const skills = definition.skills === undefined ? undefined : toSkillProvider(definition.skills, name);
  const preloadSkills = validatePreloadSkills(definition.preloadSkills, skills !== undefined, name);
  const tools = validateTools(definition.tools ?? [], fail);
  if (definition.persistentAgents !== undefined && !Array.isArray(definition.persistentAgents)) {
    throw fail('persistentAgents must be an array of { agent, mode, name?, description? }.');
  }
  const persistentAgents = resolvePersistentAgents(name, definition.persistentAgents ?? []);

  const { skills: _skills, preloadSkills: _preloadSkills, ...rest } = definition;
  const config: AgentConfig<TStateSchema, TOutputSchema> = Object.freeze({
    ...rest,
    name,
    tools,
    llmConfig: definition.llmConfig ?? {},
    maxSteps,
    persistentAgents,
    ...(skills === undefined ? {} : { skills }),
    ...(preloadSkills === undefined ? {} : { preloadSkills }),
  });
  assertUniqueToolNames(config, fail);
  return config;
}

function validateTools(
  tools: readonly AgentToolInput[],
  fail: (message: string) => ConfigurationError,
): readonly AgentToolInput[] {
  if (!Array.isArray(tools)) throw fail('tools must be an array.');
  tools.forEach((tool: unknown, index) => {
    const kind = typeof tool === 'object' && tool !== null ? (tool as { kind?: unknown }).kind : undefined;
    if (kind !== 'server' && kind !== 'client' && kind !== 'subagent' && kind !== 'remote') {
      throw fail(`tools[${index}] was not created by defineTool, createSubAgentTool or createRemoteSubAgentTool; build tools with those functions.`);
    }
    const toolName = (tool as { name?: unknown }).name;
    if (typeof toolName === 'string' && RESERVED_TOOL_NAMES.includes(toolName)) {
      throw fail(`tools[${index}] is named "${toolName}", a reserved tool name (__finish__, load_skill, read_skill_file); rename it.`);
    }
  });
  return Object.freeze([...tools]);
}

function assertUniqueToolNames(config: AgentConfig<any, any>, fail: (message: string) => ConfigurationError): void {
  const seen = new Set<string>();
  for (const tool of collectEffectiveTools(config)) {
    if (seen.has(tool.name)) throw fail(`two tools are named "${tool.name}"; tool names must be unique within an agent.`);
    seen.add(tool.name);
  }
}

function agentError(message: string, agentName?: string): ConfigurationError {
  return new ConfigurationError('INVALID_AGENT_CONFIG', message, agentName === undefined ? undefined : { agentName });
}

import type { z } from 'zod';

import { ConfigurationError } from '../errors/index.js';
import type { ApprovalPredicate, ClientTool, ServerTool, ToolExecuteFunction } from './tool-types.js';
import { isValidToolName, reservedToolNameReason } from './tool-names.js';
import { isZodSchema, toObjectJsonSchema } from './zod-schema.js';

/**
 * Options of `defineTool` for a server-executed tool.
 *
 * @example
 * const options: ServerToolDefinition<typeof schema, string> = { name: 'echo', description: 'Echo', parameters: schema, execute: async ({ text }) => text };
 */
export interface ServerToolDefinition<TSchema extends z.ZodType, TResult, TState = Record<string, unknown>> {
  name: string;
  description: string;
  parameters: TSchema;
  execute: ToolExecuteFunction<z.output<TSchema>, TResult, TState>;
  /** `true`: always ask the user first; a predicate: decide per call (throw ⇒ ask). Default false. */
  requireApproval?: boolean | ApprovalPredicate<z.output<TSchema>, TState>;
  /** A successful call completes the run with its result as the output. Default false. */
  finishWith?: boolean;
  /** Per-call time limit in milliseconds (positive integer). */
  timeoutMs?: number;
}

/**
 * Options of `defineTool` for a client-executed tool (`execute: 'client'`).
 *
 * @example
 * const options: ClientToolDefinition<typeof schema> = { name: 'confirm', description: 'Ask the user', parameters: schema, execute: 'client' };
 */
export interface ClientToolDefinition<TSchema extends z.ZodType> {
  name: string;
  description: string;
  parameters: TSchema;
  execute: 'client';
  /** How long to wait for the client's result, in milliseconds (positive integer). */
  timeoutMs?: number;
  /** Not allowed on client tools (rejected); present only so the mistake is reported at define time. */
  requireApproval?: false;
  /** Not allowed on client tools (rejected); present only so the mistake is reported at define time. */
  finishWith?: false;
}

/**
 * Define a tool an agent can call. The definition is validated now, so mistakes surface at startup.
 *
 * @throws ConfigurationError `INVALID_TOOL_CONFIG` for an invalid or reserved name (`__finish__`,
 *   `subagent__*`, `companion__*`, `load_skill`, `read_skill_file`), non-zod or non-object `parameters`, a
 *   missing description, a bad `execute`, a non-positive `timeoutMs`, or a forbidden combination
 *   (client + finishWith, client + requireApproval, requireApproval + finishWith).
 * @example
 * const weather = defineTool({
 *   name: 'get_weather',
 *   description: 'Current weather for a city',
 *   parameters: z.object({ city: z.string() }),
 *   execute: async ({ city }) => ({ city, celsius: 21 }),
 * });
 */
export function defineTool<TSchema extends z.ZodType>(definition: ClientToolDefinition<TSchema>): ClientTool<TSchema>;
export function defineTool<TSchema extends z.ZodType, TResult, TState = Record<string, unknown>>(
  definition: ServerToolDefinition<TSchema, TResult, TState>,
): ServerTool<TSchema, TResult, TState>;
export function defineTool(
  definition: ServerToolDefinition<z.ZodType, unknown> | ClientToolDefinition<z.ZodType>,
): ServerTool | ClientTool {
  if (typeof definition !== 'object' || definition === null) {
    throw toolError('defineTool expects an options object with name, description, parameters and execute.');
  }
  const { name } = definition as { name: unknown };
  if (!isValidToolName(name)) {
    throw toolError('Tool name must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, "_" and "-"); rename the tool.');
  }
  const reserved = reservedToolNameReason(name);
  if (reserved !== undefined) throw toolError(`Tool "${name}": ${reserved}; choose another name.`, name);
  validateCommonFields(definition, name);

  const { requireApproval, finishWith, execute } = definition as {
    requireApproval?: unknown;
    finishWith?: unknown;
    execute: unknown;
  };
  if (finishWith !== undefined && typeof finishWith !== 'boolean') {
    throw toolError(`Tool "${name}": finishWith must be a boolean.`, name);
  }
  if (requireApproval !== undefined && typeof requireApproval !== 'boolean' && typeof requireApproval !== 'function') {
    throw toolError(`Tool "${name}": requireApproval must be a boolean or a function (input, context) => boolean.`, name);
  }
  const gated = requireApproval === true || typeof requireApproval === 'function';

  if (execute === 'client') {
    if (finishWith === true) {
      throw toolError(`Tool "${name}": a client tool (execute: 'client') cannot use finishWith; make it a server tool.`, name);
    }
    if (gated) {
      throw toolError(
        `Tool "${name}": a client tool (execute: 'client') cannot use requireApproval; the client already decides.`,
        name,
      );
    }
    return Object.freeze({
      kind: 'client' as const,
      name,
      description: definition.description,
      parameters: definition.parameters,
      execute: 'client' as const,
      ...(definition.timeoutMs === undefined ? {} : { timeoutMs: definition.timeoutMs }),
    });
  }
  if (typeof execute !== 'function') {
    throw toolError(`Tool "${name}": execute must be an async function (input, context) => result, or 'client'.`, name);
  }
  if (gated && finishWith === true) {
    throw toolError(`Tool "${name}": requireApproval cannot be combined with finishWith; split it into two tools.`, name);
  }
  const server = definition as ServerToolDefinition<z.ZodType, unknown>;
  return Object.freeze({
    kind: 'server' as const,
    name,
    description: server.description,
    parameters: server.parameters,
    execute: server.execute,
    finishWith: finishWith === true,
    ...(requireApproval === undefined ? {} : { requireApproval: server.requireApproval }),
    ...(server.timeoutMs === undefined ? {} : { timeoutMs: server.timeoutMs }),
  });
}

function validateCommonFields(definition: { description?: unknown; parameters?: unknown; timeoutMs?: unknown }, name: string): void {
  if (typeof definition.description !== 'string' || definition.description.trim() === '') {
    throw toolError(`Tool "${name}": description must be a non-empty string (the model reads it).`, name);
  }
  if (!isZodSchema(definition.parameters)) {
    throw toolError(`Tool "${name}": parameters must be a zod schema, e.g. z.object({ … }).`, name);
  }
  if (toObjectJsonSchema(definition.parameters) === undefined) {
    throw toolError(
      `Tool "${name}": parameters must be a zod object schema representable as JSON Schema (no dates, functions, …).`,
      name,
    );
  }
  const { timeoutMs } = definition;
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs <= 0)) {
    throw toolError(`Tool "${name}": timeoutMs must be a positive integer number of milliseconds.`, name);
  }
}

function toolError(message: string, toolName?: string): ConfigurationError {
  return new ConfigurationError('INVALID_TOOL_CONFIG', message, toolName === undefined ? undefined : { toolName });
}

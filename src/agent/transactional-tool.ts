import type { z } from 'zod';

import type { TransactionClient } from '../database/app-transaction-scope.js';
import { ConfigurationError } from '../errors/index.js';
import { defineTool, type ServerToolDefinition } from './define-tool.js';
import type { AnyAgentConfig } from './agent-types.js';
import type { ServerTool, ToolContext } from './tool-types.js';

export type { TransactionClient } from '../database/app-transaction-scope.js';

/**
 * What a transactional tool's `execute` receives: the usual {@link ToolContext} plus `client`, a connection to the
 * executor's `appDatabase` inside the call's open transaction. Use only `client` for writes that must happen
 * exactly once; never run BEGIN/COMMIT/ROLLBACK through it.
 *
 * @example
 * execute: async ({ sku }, context: TransactionalToolContext) => {
 *   const { rows } = await context.client.query('INSERT INTO orders (sku) VALUES ($1) RETURNING id', [sku]);
 *   return { orderId: rows[0]?.id };
 * }
 */
export interface TransactionalToolContext<TState = Record<string, unknown>> extends ToolContext<TState> {
  /** Queries run inside the tool call's transaction on the app database; refused after the call ended. */
  client: TransactionClient;
}

/**
 * Options of `defineTransactionalTool`: those of a server tool, with `execute` receiving a
 * {@link TransactionalToolContext}.
 *
 * @example
 * const options: TransactionalToolDefinition<typeof schema, { orderId: number }> = { name: 'place_order', description: 'Place an order', parameters: schema, execute };
 */
export interface TransactionalToolDefinition<TSchema extends z.ZodType, TResult, TState = Record<string, unknown>>
  extends Omit<ServerToolDefinition<TSchema, TResult, TState>, 'execute'> {
  execute: (input: z.output<TSchema>, context: TransactionalToolContext<TState>) => Promise<TResult>;
}

/**
 * Define an exactly-once tool that writes the application's own Postgres. Each call runs in one transaction on
 * the executor's `appDatabase`: the tool's writes, its result and DBOS's record that the call completed commit
 * together, so after a crash at any point its writes exist once and a recovered run replays the recorded result
 * instead of running the tool again. A throw rolls the attempt's writes back (the executor's `toolRetryPolicy`
 * then retries in a new transaction; the final error is recorded like a result). State updates, custom events,
 * `requireApproval`, `finishWith` and `timeoutMs` work as for `defineTool` (a timed-out attempt is rolled back; an
 * approval predicate gets the plain context, without `client`). `abort()` does not cut a running call short.
 * Outside the transaction (HTTP calls, other databases) the tool is at-least-once, like any tool.
 *
 * @throws ConfigurationError `INVALID_TOOL_CONFIG` as `defineTool` does, or for `execute: 'client'`.
 * @example
 * const placeOrder = defineTransactionalTool({
 *   name: 'place_order',
 *   description: 'Place an order for a SKU',
 *   parameters: z.object({ sku: z.string() }),
 *   execute: async ({ sku }, { client }) => {
 *     const { rows } = await client.query<{ id: number }>('INSERT INTO orders (sku) VALUES ($1) RETURNING id', [sku]);
 *     return { orderId: rows[0]?.id };
 *   },
 * });
 */
export function defineTransactionalTool<TSchema extends z.ZodType, TResult, TState = Record<string, unknown>>(
  definition: TransactionalToolDefinition<TSchema, TResult, TState>,
): ServerTool<TSchema, TResult, TState> {
  const execute = (definition as { execute?: unknown } | null)?.execute;
  if (typeof execute !== 'function') {
    const name = String((definition as { name?: unknown } | null)?.name);
    throw new ConfigurationError('INVALID_TOOL_CONFIG', `Tool "${name}": a transactional tool needs execute: async (input, { client }) => result.`, { toolName: name });
  }
  const tool = defineTool(definition as unknown as ServerToolDefinition<TSchema, TResult, TState>);
  return Object.freeze({ ...tool, transactional: true });
}

/**
 * True for a tool defined with `defineTransactionalTool`.
 *
 * @example
 * const needsAppDatabase = agent.tools.some(isTransactionalTool);
 */
export function isTransactionalTool(tool: unknown): tool is ServerTool & { transactional: true } {
  return typeof tool === 'object' && tool !== null && (tool as ServerTool).kind === 'server' && (tool as ServerTool).transactional === true;
}

/**
 * The name of the first transactional tool of an agent or of its sub-agents (recursively), if any.
 *
 * @example
 * if (firstTransactionalToolName(agent) !== undefined && !isAppDatabaseBound()) throw appDatabaseRequired(name);
 */
export function firstTransactionalToolName(agent: AnyAgentConfig, seen: Set<AnyAgentConfig> = new Set()): string | undefined {
  if (seen.has(agent)) return undefined;
  seen.add(agent);
  for (const tool of agent.tools ?? []) {
    if (isTransactionalTool(tool)) return tool.name;
    const nested = tool.kind === 'subagent' ? firstTransactionalToolName(tool.agent, seen) : undefined;
    if (nested !== undefined) return nested;
  }
  return undefined;
}

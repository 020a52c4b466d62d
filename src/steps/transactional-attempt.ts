import type { ServerTool, TransactionalToolContext, TransactionClient } from '../agent/index.js';
import type { JsonPatchOperation } from '../types/json-patch.js';
import type { ExecuteToolStepInput } from './execute-tool.step.js';
import { invokeTool } from './tool-invocation.js';

type CustomChunk = { type: 'custom'; eventName: string; data: unknown };

/**
 * One attempt of a transactional tool inside its open transaction: a ToolContext with Immer-tracked state,
 * custom events and `client` (the transaction's connection). A timeout aborts the tool's signal and throws, which
 * rolls the transaction back (the caller drops a connection with a query still running).
 *
 * @example
 * const { result, patches } = await runTransactionalAttempt(tool, input, base, client, emit);
 */
export async function runTransactionalAttempt(
  tool: ServerTool<any, unknown, Record<string, unknown>>,
  input: ExecuteToolStepInput,
  base: Record<string, unknown>,
  client: TransactionClient,
  emit: (payload: CustomChunk) => Promise<void>,
): Promise<{ result: unknown; patches: JsonPatchOperation[] }> {
  const execute = tool.execute as unknown as (value: unknown, context: TransactionalToolContext<Record<string, unknown>>) => Promise<unknown>;
  const { call, sessionId, agentType } = input;
  const abort = new AbortController();
  const timeoutDetail = '; its transaction was rolled back';
  return invokeTool(execute, { call, sessionId, agentType, base, emit, abort, timeoutMs: tool.timeoutMs, timeoutDetail, extra: { client } });
}


import type { ServerTool, TransactionalToolContext, TransactionClient } from '../agent/index.js';
import { ImmerStateTracker } from '../state/index.js';
import type { JsonPatchOperation } from '../types/json-patch.js';
import type { ExecuteToolStepInput } from './execute-tool.step.js';
import { raceToolTimeout, toolResultJson } from './tool-invocation.js';

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
  const tracker = new ImmerStateTracker<Record<string, unknown>>(base);
  const abort = new AbortController();
  const pendingEmits: Promise<void>[] = [];
  const context: TransactionalToolContext<Record<string, unknown>> = {
    getState: () => tracker.getState(),
    updateState: (recipe) => void tracker.update(recipe),
    emit: (eventName, data) => void pendingEmits.push(emit({ type: 'custom', eventName, data }).catch(() => undefined)),
    abortSignal: abort.signal,
    sessionId: input.sessionId,
    toolCallId: input.call.toolCallId,
    agentType: input.agentType,
    client,
  };
  const execute = tool.execute as unknown as (value: unknown, context: TransactionalToolContext<Record<string, unknown>>) => Promise<unknown>;
  const result = await raceToolTimeout(execute(input.call.input, context), tool.timeoutMs, abort, '; its transaction was rolled back');
  await Promise.all(pendingEmits);
  return { result: toolResultJson(result), patches: tracker.getPatches() };
}


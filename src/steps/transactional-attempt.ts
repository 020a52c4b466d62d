import type { ServerTool, TransactionalToolContext, TransactionClient } from '../agent/index.js';
import { ImmerStateTracker } from '../state/index.js';
import type { JsonPatchOperation } from '../types/json-patch.js';
import type { ExecuteToolStepInput } from './execute-tool.step.js';

type CustomChunk = { type: 'custom'; eventName: string; data: unknown };

class ToolTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`The tool did not finish within ${timeoutMs} ms; its transaction was rolled back.`);
    this.name = 'ToolTimeoutError';
  }
}

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
  let timer: NodeJS.Timeout | undefined;
  try {
    const execution = execute(input.call.input, context);
    const result =
      tool.timeoutMs === undefined
        ? await execution
        : await Promise.race([
            execution,
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => {
                abort.abort();
                reject(new ToolTimeoutError(tool.timeoutMs ?? 0));
              }, tool.timeoutMs);
            }),
          ]);
    await Promise.all(pendingEmits);
    return { result: toJson(result), patches: tracker.getPatches() };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

function toJson(value: unknown): unknown {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    throw new Error('The tool returned a value that is not JSON-serializable.');
  }
}

import type { ToolContext } from '../agent/index.js';
import { ImmerStateTracker } from '../state/index.js';
import type { JsonPatchOperation } from '../types/json-patch.js';
import { ToolContractError } from '../errors/index.js';

/**
 * What every server tool call shares, whatever records it (`ExecuteToolStep`, `TransactionalToolStep`): the
 * the ToolContext over Immer-tracked state, the timeout race and the JSON form of the result.
 */

type State = Record<string, unknown>;

/** How one tool invocation runs: its call, its starting state, where custom events go, and its abort. */
export interface ToolInvocation<TExtra extends object> {
  call: { input: unknown; toolCallId: string };
  sessionId: string;
  agentType: string;
  /** The state the tool starts from (its writes are tracked as patches). */
  base: State;
  emit: (payload: { type: 'custom'; eventName: string; data: unknown }) => Promise<void>;
  /** Aborted by a timeout (and by whatever the caller ties to it). */
  abort: AbortController;
  timeoutMs: number | undefined;
  /** Appended to the timeout error's message. */
  timeoutDetail?: string;
  /** Context members beyond ToolContext (e.g. a transaction's `client`). */
  extra: TExtra;
}

/**
 * Invoke a tool's `execute` once: build its context, race its timeout, wait for its custom events, and return the
 * JSON result with the state patches it made.
 *
 * @example
 * const { result, patches } = await invokeTool(tool.execute, { call, sessionId, agentType, base, emit, abort, timeoutMs: tool.timeoutMs, extra: {} });
 */
export async function invokeTool<TExtra extends object>(
  execute: (input: unknown, context: ToolContext<State> & TExtra) => Promise<unknown>,
  invocation: ToolInvocation<TExtra>,
): Promise<{ result: unknown; patches: JsonPatchOperation[] }> {
  const { call, base, emit, abort } = invocation;
  const tracker = new ImmerStateTracker<State>(base);
  const pendingEmits: Promise<void>[] = [];
  const context: ToolContext<State> & TExtra = {
    getState: () => tracker.getState(),
    updateState: (recipe) => void tracker.update(recipe),
    emit: (eventName, data) => void pendingEmits.push(emit({ type: 'custom', eventName, data }).catch(() => undefined)),
    abortSignal: abort.signal,
    sessionId: invocation.sessionId,
    toolCallId: call.toolCallId,
    agentType: invocation.agentType,
    ...invocation.extra,
  };
  const result = await raceToolTimeout(execute(call.input, context), invocation.timeoutMs, abort, invocation.timeoutDetail);
  await Promise.all(pendingEmits);
  return { result: toolResultJson(result), patches: tracker.getPatches() };
}

/** A tool that ran past its `timeoutMs` (`detail` is appended to the message, e.g. what was rolled back). */
export class ToolTimeoutError extends Error {
  constructor(timeoutMs: number, detail = '') {
    super(`The tool did not finish within ${timeoutMs} ms${detail}.`);
    this.name = 'ToolTimeoutError';
  }
}

/**
 * Await a tool's execution, racing its `timeoutMs` when it has one: past it, `abort` is aborted and the call fails
 * with a {@link ToolTimeoutError}. The timer never outlives the call.
 *
 * @example
 * const result = await raceToolTimeout(tool.execute(input, context), tool.timeoutMs, abort);
 */
export async function raceToolTimeout<T>(execution: Promise<T>, timeoutMs: number | undefined, abort: AbortController, detail = ''): Promise<T> {
  if (timeoutMs === undefined) return execution;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      execution,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          abort.abort();
          reject(new ToolTimeoutError(timeoutMs, detail));
        }, timeoutMs);
      }),
    ]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

/**
 * A tool's result as JSON (`undefined` becomes `null`); a value JSON cannot carry is an error.
 *
 * @example
 * toolResultJson({ at: new Date(0) }); // { at: '1970-01-01T00:00:00.000Z' }
 */
export function toolResultJson(value: unknown): unknown {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch (error) {
    const message = 'The tool returned a value that is not JSON-serializable; return plain JSON data (no BigInt, no circular references).';
    throw new ToolContractError(message, { cause: error });
  }
}

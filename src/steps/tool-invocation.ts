/**
 * What every server tool call shares, whatever records it (`ExecuteToolStep`, `TransactionalToolStep`): the
 * timeout race and the JSON form of the result.
 */

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
  } catch {
    throw new Error('The tool returned a value that is not JSON-serializable.');
  }
}

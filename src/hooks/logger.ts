import type { Logger } from './types.js';

/**
 * A logger that discards everything (the default of every component).
 *
 * @example
 * const manager = new HookManager({ logger: noopLogger });
 */
export const noopLogger: Logger = Object.freeze({
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
});

/**
 * A development logger writing `[helix-agents] message {fields}` lines to the console.
 *
 * @example
 * const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter, logger: consoleLogger });
 */
export const consoleLogger: Logger = Object.freeze({
  debug: (message: string, fields?: Record<string, unknown>) => console.debug(...line(message, fields)),
  info: (message: string, fields?: Record<string, unknown>) => console.info(...line(message, fields)),
  warn: (message: string, fields?: Record<string, unknown>) => console.warn(...line(message, fields)),
  error: (message: string, fields?: Record<string, unknown>) => console.error(...line(message, fields)),
});

function line(message: string, fields: Record<string, unknown> | undefined): unknown[] {
  const text = `[helix-agents] ${message}`;
  return fields === undefined ? [text] : [text, fields];
}

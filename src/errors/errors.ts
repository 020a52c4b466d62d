import { HelixError, hasCode } from './helix-error.js';

/**
 * Thrown by `createSession` when a session with that id already exists. Exactly one of any number of
 * concurrent `createSession` calls for one id succeeds; the others get this error.
 *
 * @example
 * if (SessionAlreadyExistsError.isInstance(error)) return store.loadState(sessionId);
 */
export class SessionAlreadyExistsError extends HelixError {
  constructor(readonly sessionId: string, options?: { cause?: unknown }) {
    super('SESSION_ALREADY_EXISTS', 'A session with this id already exists; load it or choose another sessionId.', {
      ...options,
      data: { sessionId },
    });
    this.name = 'SessionAlreadyExistsError';
  }
  static override isInstance(error: unknown): error is SessionAlreadyExistsError {
    return hasCode(error, 'SESSION_ALREADY_EXISTS');
  }
}

/**
 * Thrown when an operation needs a session that does not exist. `options.hint` replaces the default next step
 * (e.g. for a session deleted while its run used it).
 *
 * @example
 * if (SessionNotFoundError.isInstance(error)) console.log('start the session with execute() first');
 */
export class SessionNotFoundError extends HelixError {
  constructor(readonly sessionId: string, options?: { cause?: unknown; hint?: string }) {
    super('SESSION_NOT_FOUND', `No session with this id exists; ${options?.hint ?? 'create it with execute() first.'}`, {
      ...(options?.cause === undefined ? {} : { cause: options.cause }),
      data: { sessionId },
    });
    this.name = 'SessionNotFoundError';
  }
  static override isInstance(error: unknown): error is SessionNotFoundError {
    return hasCode(error, 'SESSION_NOT_FOUND');
  }
}

/**
 * Thrown by a versioned write (`saveStateAndPromoteStaging` with `expectedVersion`) when another writer
 * changed the session first. Nothing was written; reload the session and retry.
 *
 * @example
 * try { await store.saveStateAndPromoteStaging(id, write, messages, meta, { expectedVersion: 3 }); }
 * catch (error) { if (StaleStateError.isInstance(error)) { /* reload and retry *\/ } }
 */
export class StaleStateError extends HelixError {
  constructor(
    readonly sessionId: string,
    readonly expectedVersion: number,
    readonly actualVersion: number | null,
    options?: { cause?: unknown },
  ) {
    super('STALE_STATE', 'The session changed since it was read (version mismatch); reload it and retry.', {
      ...options,
      data: { sessionId, expectedVersion, actualVersion },
    });
    this.name = 'StaleStateError';
  }
  static override isInstance(error: unknown): error is StaleStateError {
    return hasCode(error, 'STALE_STATE');
  }
}

const CONFIGURATION_ERROR_CODES = [
  'INVALID_AGENT_CONFIG',
  'INVALID_TOOL_CONFIG',
  'APP_DATABASE_NOT_CONFIGURED',
  'APP_DATABASE_AFTER_LAUNCH',
  'QUEUE_NOT_REGISTERED',
  'QUEUE_NOT_SUPPORTED',
  'NO_LLM_ADAPTER',
] as const;

/**
 * The codes of a {@link ConfigurationError}: an invalid agent or tool definition, a transactional tool without an
 * app database (`APP_DATABASE_NOT_CONFIGURED`), an app database registered after `DBOS.launch()`, a run's queue that
 * no process registered (`QUEUE_NOT_REGISTERED`), what a queued run cannot honour (`QUEUE_NOT_SUPPORTED`: per-call
 * hooks or usage store, a persistent session), or a run to start in a process without a model (`NO_LLM_ADAPTER`).
 *
 * @example
 * const code: ConfigurationErrorCode = 'APP_DATABASE_NOT_CONFIGURED';
 */
export type ConfigurationErrorCode = (typeof CONFIGURATION_ERROR_CODES)[number];

/**
 * Thrown by `defineAgent` / `defineTool` / `createSubAgentTool` for an invalid definition, and by the executor
 * for a capability it cannot offer (a transactional tool without `appDatabase`).
 *
 * @example
 * try { defineTool({ name: '__finish__', … }); } catch (error) { console.log(error.code); } // INVALID_TOOL_CONFIG
 */
export class ConfigurationError extends HelixError {
  constructor(code: ConfigurationErrorCode, message: string, data?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(code, message, { ...(data === undefined ? {} : { data }), ...(options?.cause === undefined ? {} : { cause: options.cause }) });
    this.name = 'ConfigurationError';
  }
  static override isInstance(error: unknown): error is ConfigurationError {
    return CONFIGURATION_ERROR_CODES.some((code) => hasCode(error, code));
  }
}

/**
 * Thrown for invalid arguments to a public method (bad input shape, empty id, out-of-range number).
 * The message names the field, never its value.
 *
 * @example
 * try { await store.getMessages(id, { limit: -1 }); } catch (error) { console.log(error.code); } // INVALID_ARGUMENT
 */
export class InvalidArgumentError extends HelixError {
  constructor(message: string, data?: Record<string, unknown>) {
    super('INVALID_ARGUMENT', message, data === undefined ? undefined : { data });
    this.name = 'InvalidArgumentError';
  }
  static override isInstance(error: unknown): error is InvalidArgumentError {
    return hasCode(error, 'INVALID_ARGUMENT');
  }
}

/**
 * Thrown by an LLM adapter when the provider call fails. `retryable` tells the runtime whether a retry may
 * succeed (HTTP 429/5xx, dropped connection) or not (4xx, malformed response).
 *
 * @example
 * if (LLMCallError.isInstance(error) && error.retryable) { /* the step will be retried *\/ }
 */
export class LLMCallError extends HelixError {
  readonly retryable: boolean;
  /** The provider's HTTP status, when known. */
  readonly statusCode?: number;
  /** How long the provider asked to wait before the next request (its `retry-after`), when it said. */
  readonly retryAfterMs?: number;
  constructor(message: string, options: { retryable: boolean; cause?: unknown; statusCode?: number; retryAfterMs?: number }) {
    super('LLM_CALL_FAILED', message, {
      cause: options.cause,
      data: {
        retryable: options.retryable,
        ...(options.statusCode === undefined ? {} : { statusCode: options.statusCode }),
        ...(options.retryAfterMs === undefined ? {} : { retryAfterMs: options.retryAfterMs }),
      },
    });
    this.name = 'LLMCallError';
    this.retryable = options.retryable;
    if (options.statusCode !== undefined) this.statusCode = options.statusCode;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }

  /** True for the provider's "too many requests" (HTTP 429): the step waits it out instead of failing. */
  get rateLimited(): boolean {
    return this.statusCode === 429;
  }
  static override isInstance(error: unknown): error is LLMCallError {
    return hasCode(error, 'LLM_CALL_FAILED');
  }
}

/**
 * Thrown by stream managers: writing to an ended/failed stream (`STREAM_CLOSED`) or reading/ending an
 * unknown one (`STREAM_NOT_FOUND`).
 *
 * @example
 * if (StreamError.isInstance(error) && error.code === 'STREAM_CLOSED') { /* the run already ended *\/ }
 */
export class StreamError extends HelixError {
  constructor(code: 'STREAM_NOT_FOUND' | 'STREAM_CLOSED', streamId: string, message: string) {
    super(code, message, { data: { streamId } });
    this.name = 'StreamError';
  }
  static override isInstance(error: unknown): error is StreamError {
    return hasCode(error, 'STREAM_NOT_FOUND') || hasCode(error, 'STREAM_CLOSED');
  }
}

/**
 * Thrown when a store migration or query fails for a reason other than a contract violation. The message
 * never contains SQL parameters. `retryable` is true when the cause was transient (a restarting or
 * unreachable database, a dropped connection) and outlasted the store's retry budget: the same call may
 * succeed later; `data.condition` names it (a SQLSTATE such as `57P01`, or `ECONNREFUSED`).
 *
 * @example
 * try { await store.loadState(id); } catch (error) { if (StoreError.isInstance(error) && error.retryable) scheduleRetry(); }
 */
export class StoreError extends HelixError {
  readonly retryable: boolean;
  constructor(
    code: 'STORE_ERROR' | 'MIGRATION_FAILED',
    message: string,
    options?: { cause?: unknown; data?: Record<string, unknown>; retryable?: boolean },
  ) {
    const retryable = options?.retryable === true;
    super(code, message, { ...(options?.cause === undefined ? {} : { cause: options.cause }), data: { ...options?.data, retryable } });
    this.name = 'StoreError';
    this.retryable = retryable;
  }
  static override isInstance(error: unknown): error is StoreError {
    return hasCode(error, 'STORE_ERROR') || hasCode(error, 'MIGRATION_FAILED');
  }
  /** True for a StoreError (also one revived by DBOS as a plain `Error`) whose cause was transient. */
  static isRetryable(error: unknown): boolean {
    if (!StoreError.isInstance(error)) return false;
    const data = (error as { data?: { retryable?: unknown } }).data;
    return (error as { retryable?: unknown }).retryable === true || data?.retryable === true;
  }
}

import {
  APICallError,
  InvalidPromptError,
  InvalidResponseDataError,
  JSONParseError,
  RetryError,
  TypeValidationError,
} from 'ai';
import { LLMCallError } from '../../errors/index.js';

/** Node/undici error codes of a dropped or refused connection: a retry may succeed. */
const NETWORK_ERROR_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Maps anything an AI SDK call throws (or reports as a stream `error` part) to an `LLMCallError`.
 *
 * `retryable`: HTTP 408/409/429/5xx, dropped connections and timeouts → true; other 4xx, malformed
 * responses, prompt conversion failures, aborts and unknown errors → false. The message and `cause` carry
 * only the error class and HTTP status: the SDK's errors hold the request body (the prompt) and provider
 * messages may echo keys, so neither is kept.
 *
 * @example
 * try { await adapter.generateStep(input); } catch (error) { throw toLLMCallError(error); }
 */
export function toLLMCallError(error: unknown): LLMCallError {
  if (LLMCallError.isInstance(error)) return error;
  if (RetryError.isInstance(error)) return toLLMCallError(error.lastError);

  const errorName = error instanceof Error ? error.name : typeof error;
  if (APICallError.isInstance(error)) {
    const statusCode = error.statusCode;
    const retryable = isRetryableStatus(statusCode) ?? error.isRetryable;
    const retryAfterMs = retryAfterOf(error.responseHeaders);
    return new LLMCallError(describeStatus(statusCode, retryable), {
      retryable,
      cause: sanitizedCause(errorName, statusCode),
      ...(statusCode === undefined ? {} : { statusCode }),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  if (isTimeout(error) || isNetworkError(error)) {
    return new LLMCallError(
      'The connection to the LLM provider failed or timed out; the call may succeed when retried.',
      { retryable: true, cause: sanitizedCause(errorName) },
    );
  }
  if (isAbort(error)) {
    return new LLMCallError('The LLM call was aborted.', { retryable: false, cause: sanitizedCause(errorName) });
  }
  if (JSONParseError.isInstance(error) || TypeValidationError.isInstance(error) || InvalidResponseDataError.isInstance(error)) {
    return new LLMCallError(
      'The LLM provider sent a response that could not be parsed; check that the model and provider package match.',
      { retryable: false, cause: sanitizedCause(errorName) },
    );
  }
  if (InvalidPromptError.isInstance(error)) {
    return new LLMCallError(
      'The conversation could not be converted into a prompt for this model; check the message history and tool results.',
      { retryable: false, cause: sanitizedCause(errorName) },
    );
  }
  return new LLMCallError(`The LLM call failed (${errorName}); see the adapter logs for details.`, {
    retryable: false,
    cause: sanitizedCause(errorName),
  });
}

/** The longest wait a provider's `retry-after` is taken at (a larger one is capped). */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * The provider's requested wait in ms: `retry-after-ms` (OpenAI), else `retry-after` in seconds or as an HTTP date;
 * undefined when absent or unreadable.
 *
 * @example
 * retryAfterOf({ 'retry-after': '2' }); // 2000
 */
export function retryAfterOf(headers: Record<string, string> | undefined, now: number = Date.now()): number | undefined {
  if (headers === undefined) return undefined;
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const milliseconds = Number(lower.get('retry-after-ms'));
  if (lower.has('retry-after-ms') && Number.isFinite(milliseconds) && milliseconds >= 0) return Math.min(Math.ceil(milliseconds), MAX_RETRY_AFTER_MS);
  const value = lower.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(Math.ceil(seconds * 1000), MAX_RETRY_AFTER_MS);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}

/** True/false for statuses that decide retryability on their own; undefined to defer to the SDK's verdict. */
function isRetryableStatus(statusCode: number | undefined): boolean | undefined {
  if (statusCode === undefined || statusCode < 400) return undefined;
  return statusCode === 408 || statusCode === 409 || statusCode === 429 || statusCode >= 500;
}

/** A message for an HTTP-level failure that says what to do next. */
function describeStatus(statusCode: number | undefined, retryable: boolean): string {
  if (statusCode === undefined || statusCode < 400) {
    return retryable
      ? 'The connection to the LLM provider failed; the call may succeed when retried.'
      : 'The LLM provider call failed; check the provider configuration.';
  }
  if (statusCode === 429) return 'The LLM provider rate-limited the call (HTTP 429); the call may succeed when retried.';
  if (retryable) return `The LLM provider returned HTTP ${statusCode}; the call may succeed when retried.`;
  if (statusCode === 401 || statusCode === 403) {
    return `The LLM provider rejected the credentials (HTTP ${statusCode}); check the API key.`;
  }
  return `The LLM provider rejected the request (HTTP ${statusCode}); check the model id, settings and message history.`;
}

/** A stand-in cause that keeps the SDK error's class name and status, never its request body or message. */
function sanitizedCause(errorName: string, statusCode?: number): Error {
  const cause = new Error(statusCode === undefined ? errorName : `${errorName} (HTTP ${statusCode})`);
  cause.name = errorName;
  return cause;
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'ResponseAborted');
}

/** Walks the cause chain for a network error code or undici's `fetch failed` / `terminated` TypeErrors. */
function isNetworkError(error: unknown): boolean {
  const visited = new Set<unknown>();
  let current: unknown = error;
  while (current instanceof Error && !visited.has(current)) {
    visited.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return true;
    if (current instanceof TypeError && /^(fetch failed|failed to fetch|terminated)$/i.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}

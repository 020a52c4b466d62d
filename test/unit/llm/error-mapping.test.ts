import { APICallError, JSONParseError, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import { LLMCallError } from '../../../src/errors/index.js';
import { toLLMCallError } from '../../../src/llm/vercel/error-mapping.js';
import { toFinishReason, toTokenUsage } from '../../../src/llm/vercel/result-mapping.js';

const PROMPT = 'SECRET PROMPT sk-live-123';

function apiCallError(statusCode: number | undefined, isRetryable?: boolean): APICallError {
  return new APICallError({
    message: `provider says no: ${PROMPT}`,
    url: 'https://example.invalid/v1/responses',
    requestBodyValues: { input: PROMPT },
    ...(statusCode === undefined ? {} : { statusCode }),
    responseBody: `{"error":"${PROMPT}"}`,
    ...(isRetryable === undefined ? {} : { isRetryable }),
  });
}

/** Every string an error exposes: message, data, cause chain. */
function exposedText(error: LLMCallError): string {
  const cause = error.cause as Error | undefined;
  return JSON.stringify({ message: error.message, data: error.data, cause: cause?.message, causeName: cause?.name });
}

describe('toLLMCallError', () => {
  it.each([
    [429, true],
    [408, true],
    [409, true],
    [500, true],
    [503, true],
    [400, false],
    [401, false],
    [404, false],
    [422, false],
  ])('HTTP %i → retryable %s, statusCode in data', (statusCode, retryable) => {
    const mapped = toLLMCallError(apiCallError(statusCode));
    expect(mapped.retryable).toBe(retryable);
    expect(mapped.code).toBe('LLM_CALL_FAILED');
    expect(mapped.data).toEqual({ retryable, statusCode });
  });

  it('never exposes the prompt, the request body or the provider message', () => {
    for (const error of [apiCallError(429), apiCallError(400), new JSONParseError({ text: PROMPT, cause: new Error(PROMPT) })]) {
      expect(exposedText(toLLMCallError(error))).not.toContain('SECRET');
    }
  });

  it('trusts the SDK verdict for errors without an HTTP error status (dropped stream)', () => {
    expect(toLLMCallError(apiCallError(undefined, true)).retryable).toBe(true);
    expect(toLLMCallError(apiCallError(200, true)).retryable).toBe(true);
    expect(toLLMCallError(apiCallError(undefined, false)).retryable).toBe(false);
  });

  it('maps the last error of a RetryError', () => {
    const retryError = new RetryError({ message: 'gave up', reason: 'maxRetriesExceeded', errors: [apiCallError(500), apiCallError(429)] });
    expect(toLLMCallError(retryError).data).toEqual({ retryable: true, statusCode: 429 });
  });

  it('treats network failures and timeouts as retryable', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(toLLMCallError(new TypeError('fetch failed', { cause: reset })).retryable).toBe(true);
    expect(toLLMCallError(new TypeError('terminated')).retryable).toBe(true);
    const timeout = new Error('timed out');
    timeout.name = 'TimeoutError';
    expect(toLLMCallError(timeout).retryable).toBe(true);
  });

  it('treats malformed responses, aborts and unknown errors as not retryable', () => {
    expect(toLLMCallError(new JSONParseError({ text: '{', cause: new Error('x') })).retryable).toBe(false);
    const abort = new Error('aborted');
    abort.name = 'AbortError';
    expect(toLLMCallError(abort).retryable).toBe(false);
    expect(toLLMCallError(new RangeError('weird')).retryable).toBe(false);
    expect(toLLMCallError('a string').retryable).toBe(false);
  });

  it('returns an LLMCallError unchanged', () => {
    const original = new LLMCallError('already mapped', { retryable: true });
    expect(toLLMCallError(original)).toBe(original);
  });
});

describe('result mapping', () => {
  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool-calls', 'tool_calls'],
    ['content-filter', 'content_filter'],
    ['error', 'error'],
    ['other', 'other'],
    [undefined, 'other'],
  ] as const)('finish reason %s → %s', (reason, expected) => {
    expect(toFinishReason(reason)).toBe(expected);
  });

  it('fills missing usage numbers and copies reasoning and cached counts when present', () => {
    expect(toTokenUsage(undefined)).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
    expect(
      toTokenUsage({
        inputTokens: 12,
        outputTokens: 5,
        totalTokens: undefined,
        inputTokenDetails: { noCacheTokens: 10, cacheReadTokens: 2, cacheWriteTokens: undefined },
        outputTokenDetails: { textTokens: 4, reasoningTokens: 1 },
      }),
    ).toEqual({ inputTokens: 12, outputTokens: 5, totalTokens: 17, reasoningTokens: 1, cachedInputTokens: 2 });
  });
});

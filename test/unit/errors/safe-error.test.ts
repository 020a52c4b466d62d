import { describe, expect, it } from 'vitest';
import { HelixError, InvalidArgumentError, LLMCallError, StoreError } from '../../../src/errors/index.js';
import { boundedMessage, clipText, MAX_SAFE_ERROR_MESSAGE, redactSecrets, safeErrorOf, safeErrorText, type ErrorOrigin } from '../../../src/errors/index.js';

const SECRET = 'sk-live-SECRET123456789';

describe('redactSecrets', () => {
  const cases: Array<[string, string, string]> = [
    ['an sk- key', `invalid key ${SECRET} given`, 'invalid key [redacted] given'],
    ['a bearer token', 'header Authorization: Bearer abc.def-ghi_123', 'header Authorization: [redacted]'],
    ['api_key=…', 'url ?api_key=AbC123xyz&x=1', 'url ?api_key=[redacted]&x=1'],
    ['a JSON password', '{"password": "hunter2"}', '{"password": "[redacted]"}'],
    ['a JWT', 'token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc', 'token [redacted]'],
    ['an AWS key id', 'key AKIAIOSFODNN7EXAMPLE used', 'key [redacted] used'],
    ['long hex', `hash ${'a1'.repeat(20)} end`, 'hash [redacted] end'],
    ['a base64 run', 'blob QWxhZGRpbjpvcGVuIHNlc2FtZQ9zZWNyZXQ= end', 'blob [redacted] end'],
  ];
  it.each(cases)('redacts %s', (_name, text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });

  it('keeps ordinary text, tool names and short numbers', () => {
    const text = 'Tool "search_documents_v2_for_customers" failed (TypeError, status 401) after 3 attempts; max tokens: 4096.';
    expect(redactSecrets(text)).toBe(text);
  });
});

describe('clipText', () => {
  it('cuts with an ellipsis and never splits a surrogate pair', () => {
    expect(clipText('abcdef', 4)).toBe('abc…');
    expect(clipText('abc', 4)).toBe('abc');
    expect(clipText('ab😀cd', 4)).toBe('ab…');
  });
});

describe('safeErrorOf', () => {
  const providerError = Object.assign(new Error(`401 Incorrect API key ${SECRET}; prompt: "tell me the secret plan"`), { name: 'APICallError', statusCode: 401 });
  const cases: Array<[string, unknown, ErrorOrigin, string]> = [
    ['a provider error', providerError, { source: 'llm' }, 'LLM_CALL_FAILED: The LLM call failed (APICallError, status 401); the cause is logged at debug level.'],
    ['a user tool error', new TypeError('cannot read "ssn" of 123-45-6789'), { source: 'tool', toolName: 'lookup' }, 'TOOL_ERROR: Tool "lookup" failed (TypeError); the cause is logged at debug level.'],
    ['a network error code', Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:443'), { code: 'ECONNREFUSED' }), { source: 'internal' }, 'INTERNAL_ERROR: The operation failed (Error ECONNREFUSED); the cause is logged at debug level.'],
    ['a thrown string', 'password=hunter2', { source: 'tool', toolName: 't' }, 'TOOL_ERROR: Tool "t" failed (a thrown string); the cause is logged at debug level.'],
    ['a thrown null', null, { source: 'internal' }, 'INTERNAL_ERROR: The operation failed (a thrown null); the cause is logged at debug level.'],
    ['a weird class name', Object.assign(new Error('x'), { name: 'Bad name with spaces sk-live-abcdefgh' }), { source: 'llm' }, 'LLM_CALL_FAILED: The LLM call failed (Error); the cause is logged at debug level.'],
    ['a HelixError (own message)', new InvalidArgumentError('limit must be a positive integer.'), { source: 'tool', toolName: 't' }, 'INVALID_ARGUMENT: limit must be a positive integer.'],
    ['an adapter LLMCallError', new LLMCallError('The LLM provider rejected the credentials (HTTP 401); check the API key.', { retryable: false }), { source: 'llm' }, 'LLM_CALL_FAILED: The LLM provider rejected the credentials (HTTP 401); check the API key.'],
  ];
  it.each(cases)('renders %s', (_name, error, origin, expected) => {
    expect(safeErrorText(error, origin)).toBe(expected);
  });

  it('recognizes a HelixError revived by DBOS as a plain Error', () => {
    const revived = Object.assign(new Error('Could not load state (Postgres error 57P01); see the cause for the driver error.'), { code: 'STORE_ERROR' });
    expect(safeErrorOf(revived, { source: 'internal' })).toEqual({ code: 'STORE_ERROR', message: revived.message });
  });

  it('redacts and bounds even a HelixError message', () => {
    const long = new HelixError('LLM_CALL_FAILED', `rejected ${SECRET} ${'y'.repeat(2_000)}`);
    const safe = safeErrorOf(long, { source: 'llm' });
    expect(safe.message).not.toContain('SECRET123');
    expect(safe.message.length).toBeLessThanOrEqual(MAX_SAFE_ERROR_MESSAGE);
    expect(boundedMessage(new StoreError('STORE_ERROR', 'Bearer abcdef123 rejected').message)).toBe('[redacted] rejected');
  });
});

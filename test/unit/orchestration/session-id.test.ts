import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../src/errors/index.js';
import { assertValidSessionId, MAX_SESSION_ID_BYTES } from '../../../src/orchestration/session-id.js';

describe('assertValidSessionId', () => {
  it.each([['a'], ['chat-42'], ['x'.repeat(MAX_SESSION_ID_BYTES)], ['é'.repeat(512)], ['日本語'], ['emoji 🎉']])('accepts %j', (id) => {
    expect(() => assertValidSessionId(id)).not.toThrow();
  });

  it.each([
    ['empty', ''],
    ['1,025 ASCII bytes', 'x'.repeat(1025)],
    ['1,026 bytes in 513 characters', 'é'.repeat(513)],
    ['NUL', 'secret\u0000'],
    ['tab', 'secret\tid'],
    ['C1 control', 'secret\u0085id'],
    ['lone surrogate', 'secret\udc00'],
    ['not a string', 42],
  ])('rejects %s without echoing it', (_label, id) => {
    let caught: unknown;
    try {
      assertValidSessionId(id);
    } catch (error) {
      caught = error;
    }
    expect(InvalidArgumentError.isInstance(caught)).toBe(true);
    const text = `${(caught as Error).message}${JSON.stringify((caught as InvalidArgumentError).data)}`;
    expect(text).not.toContain('secret');
    expect(text).not.toContain('xxxx');
  });
});

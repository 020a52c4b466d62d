import { describe, expect, it } from 'vitest';
import { ChangeSignal } from '../../../src/stream/change-signal.js';
import { describeError } from '../../../src/stream/describe-error.js';
import { isTransientPostgresError } from '../../../src/stream/postgres/is-transient-postgres-error.js';
import { postgresStreamStatements } from '../../../src/stream/postgres/postgres-stream-statements.js';
import { redisStreamKeys } from '../../../src/stream/redis/redis-stream-keys.js';

describe('ChangeSignal', () => {
  it('resolves at once when a change arrived after the version was taken', async () => {
    const signal = new ChangeSignal();
    const seen = signal.version;
    signal.notify();
    let resolved = false;
    void signal.waitBeyond(seen).then(() => (resolved = true));
    await Promise.resolve();
    expect(resolved).toBe(true);
  });

  it('waits for the next change, the timeout or the abort signal', async () => {
    const signal = new ChangeSignal();
    const order: string[] = [];
    const byChange = signal.waitBeyond(signal.version).then(() => order.push('change'));
    const byTimeout = signal.waitBeyond(signal.version, 5).then(() => order.push('timeout'));
    const abort = new AbortController();
    const byAbort = signal.waitBeyond(signal.version, undefined, abort.signal).then(() => order.push('abort'));
    await byTimeout;
    abort.abort();
    await byAbort;
    signal.notify();
    await byChange;
    expect(order).toEqual(['timeout', 'abort', 'change']);
  });
});

describe('isTransientPostgresError', () => {
  it.each([
    [{ code: '08006' }, true],
    [{ code: '57P01' }, true],
    [{ code: '53300' }, true],
    [{ code: '40001' }, true],
    [Object.assign(new Error('x'), { code: 'ECONNRESET' }), true],
    [Object.assign(new Error('x'), { code: 'EPIPE' }), true],
    [new Error('Connection terminated unexpectedly'), true],
    [{ code: '22P02' }, false],
    [{ code: '42P01' }, false],
    [{ code: '23505' }, false],
    [{ code: 'STREAM_CLOSED' }, false],
  ])('%o → %s', (error, expected) => {
    expect(isTransientPostgresError(error)).toBe(expected);
  });
});

describe('describeError', () => {
  it('keeps the name and code, never the message', () => {
    expect(describeError(Object.assign(new Error('password=hunter2'), { code: '28P01' }))).toBe('Error(28P01)');
    expect(describeError(new TypeError('payload'))).toBe('TypeError');
    expect(describeError('text')).toBe('string');
  });
});

describe('stream names', () => {
  it('qualifies Postgres tables by a quoted schema and bounds the channel name', () => {
    const statements = postgresStreamStatements('My"Schema');
    expect(statements.append).toContain('"My""Schema".__agents_streams');
    expect(statements.listen).toBe('LISTEN "helix_streams.My""Schema"');
    expect(postgresStreamStatements('s'.repeat(100)).channel).toHaveLength(63);
  });

  it('gives the three Redis keys of a stream one hash tag', () => {
    expect(redisStreamKeys('p:', 'abc')).toEqual({ meta: 'p:{abc}:meta', chunks: 'p:{abc}:chunks', control: 'p:{abc}:control' });
  });
});

import { describe, expect, it } from 'vitest';
import { ChangeSignal } from '../../../src/stream/change-signal.js';
import { describeError } from '../../../src/stream/describe-error.js';
import { isTransientPostgresError, transientPostgresCondition } from '../../../src/database/transient-postgres-error.js';
import { postgresStreamStatements, streamNotificationKey } from '../../../src/stream/postgres/postgres-stream-statements.js';
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
    [{ code: '57P03' }, true],
    [{ code: '40P01' }, true],
    [Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }), true],
    [new Error('wrapped', { cause: { code: '08006' } }), true],
    [new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]), true],
    [new TypeError('cannot read properties of undefined'), false],
    [new Error('no code at all'), false],
    [{ code: '22P02' }, false],
    [{ code: '42P01' }, false],
    [{ code: '23505' }, false],
    [{ code: 'STREAM_CLOSED' }, false],
  ])('%o → %s', (error, expected) => {
    expect(isTransientPostgresError(error)).toBe(expected);
  });

  it('names the condition: SQLSTATE, Node code or driver failure', () => {
    expect(transientPostgresCondition({ code: '57P01' })).toBe('57P01');
    expect(transientPostgresCondition(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe('ECONNREFUSED');
    expect(transientPostgresCondition(new Error('Connection terminated unexpectedly'))).toBe('ConnectionTerminated');
    expect(transientPostgresCondition(new Error('boom'))).toBeUndefined();
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

  it('gives the four Redis keys of a stream one hash tag', () => {
    expect(redisStreamKeys('p:', 'abc')).toEqual({ meta: 'p:{abc}:meta', chunks: 'p:{abc}:chunks', control: 'p:{abc}:control', ids: 'p:{abc}:ids' });
  });

  it('notifies a 32-character key for any stream id (NOTIFY payloads are limited to 8,000 bytes)', () => {
    const long = 'é'.repeat(512); // 1,024 bytes
    expect(streamNotificationKey(long)).toMatch(/^[0-9a-f]{32}$/);
    expect(streamNotificationKey(long)).not.toBe(streamNotificationKey(`${long.slice(1)}e`));
  });
});

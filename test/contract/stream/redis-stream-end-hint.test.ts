import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStreamManager } from '../../../src/stream/redis/redis-stream-manager.js';
import { hintCounter } from '../../../src/testing/contracts/stream-manager-contract/end-hints.js';
import { redisAvailable, testRedisUrl } from '../../support/services.js';
import { expectEndAndFailureHinted } from './end-hint-scenario.js';

// Issue 22 (fleet): the handle of a queued run learns that the run ended from its stream's end, written by the worker
// process; on Redis the script that ends the stream publishes it, and every manager of that key prefix hears it.

const keyPrefix = `test:stream-end-hint:${randomUUID()}:`;
let worker: RedisStreamManager;
let api: RedisStreamManager;
let elsewhere: RedisStreamManager;

/** Subscribe to `streamId`'s end on `manager`; counts the hints, and waits for the next one. */
function endHints(manager: RedisStreamManager, streamId: string): ReturnType<typeof hintCounter> & { stop: () => void } {
  const hints = hintCounter();
  return { ...hints, stop: manager.onStreamEnd(streamId, hints.listener) };
}

describe.skipIf(!redisAvailable())('RedisStreamManager.onStreamEnd (needs Redis)', () => {
  beforeAll(() => {
    worker = new RedisStreamManager({ url: testRedisUrl() }, { keyPrefix, flushIntervalMs: 60_000 });
    api = new RedisStreamManager({ url: testRedisUrl() }, { keyPrefix });
    elsewhere = new RedisStreamManager({ url: testRedisUrl() }, { keyPrefix: `${keyPrefix}elsewhere:` });
  });

  afterAll(async () => {
    await Promise.all([worker?.close(), api?.close(), elsewhere?.close()]);
    const admin = new Redis(testRedisUrl());
    const keys = await admin.keys(`${keyPrefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
  });

  it("hints another manager of a stream's end and of its failure, not of its chunks nor of another stream", async () => {
    const hints = endHints(api, 'hinted');
    const other = endHints(api, 'other');
    // Once subscribed, every listener hears once that something may have ended (a message before it is missed).
    expect(await hints.next(2_000)).toBe(true);
    await expectEndAndFailureHinted(worker, 'hinted', hints, other);
    hints.stop();
    other.stop();
  });

  it('stops hinting after the unsubscribe; a manager of another key prefix hears nothing; a malformed id is refused', async () => {
    const hints = endHints(api, 'unsubscribed');
    const foreign = endHints(elsewhere, 'unsubscribed');
    expect(await foreign.next(2_000)).toBe(true);
    const [before, foreignBefore] = [hints.count(), foreign.count()];
    hints.stop();
    await worker.endStream('unsubscribed');
    expect(await foreign.next(150)).toBe(false);
    expect([hints.count() - before, foreign.count() - foreignBefore]).toEqual([0, 0]);
    foreign.stop();
    expect(() => api.onStreamEnd('', () => undefined)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

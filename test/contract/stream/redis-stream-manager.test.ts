import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe } from 'vitest';
import { RedisStreamManager } from '../../../src/stream/redis/redis-stream-manager.js';
import { describeStreamManagerContract } from '../../../src/testing/contracts/index.js';
import { redisAvailable, testRedisUrl } from '../../support/services.js';

const keyPrefix = `test:stream-contract:${randomUUID()}:`;

describe.skipIf(!redisAvailable())('RedisStreamManager (needs Redis)', () => {
  afterAll(async () => {
    const admin = new Redis(testRedisUrl());
    const keys = await admin.keys(`${keyPrefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
  });

  const create = (): RedisStreamManager => new RedisStreamManager({ url: testRedisUrl() }, { keyPrefix });
  describeStreamManagerContract('RedisStreamManager', create, { endHints: true });
});

import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { Redis } from 'ioredis';
import { createTestDatabase, redisAvailable, testRedisUrl, type TestDatabase } from '../support/services.js';

describe('test services', () => {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    for (const database of databases) await database.drop();
  });

  it('gives each caller its own empty Postgres database', async () => {
    const first = await createTestDatabase('services_a');
    const second = await createTestDatabase('services_b');
    databases.push(first, second);
    expect(first.name).not.toBe(second.name);
    const client = new pg.Client({ connectionString: first.url });
    await client.connect();
    try {
      await client.query('CREATE TABLE marker (id int)');
      const { rows } = await client.query<{ current_database: string }>('SELECT current_database()');
      expect(rows[0]?.current_database).toBe(first.name);
    } finally {
      await client.end();
    }
    const other = new pg.Client({ connectionString: second.url });
    await other.connect();
    try {
      const { rows } = await other.query("SELECT to_regclass('public.marker') AS marker");
      expect(rows[0]?.marker).toBeNull();
    } finally {
      await other.end();
    }
  });

  it.skipIf(!redisAvailable())('gives a reachable Redis', async () => {
    const redis = new Redis(testRedisUrl(), { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    try {
      await redis.set('helix:services-test', 'ok');
      expect(await redis.get('helix:services-test')).toBe('ok');
    } finally {
      redis.disconnect();
    }
  });
});

/**
 * A closed store or stream manager fails fast with a typed error — StoreError `STORE_ERROR`, not retryable,
 * `data.condition` `'STORE_CLOSED'` — instead of waiting on its pool (a knex pool being destroyed never answers a new
 * acquire: a workflow reading a store closed under it used to wait out knex's 60 s acquire timeout).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStoreClosedError } from '../../../src/database/store-closed.js';
import { StoreError } from '../../../src/errors/index.js';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import { RedisStreamManager } from '../../../src/stream/redis/redis-stream-manager.js';
import { createTestDatabase, redisAvailable, testRedisUrl, type TestDatabase } from '../../support/services.js';

/** Far below any pool timeout: the call must not touch the pool at all. */
const FAST_MS = 1_000;

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('closed_store');
  const store = new PostgresStateStore({ connectionString: database.url });
  await store.migrate();
  await store.close();
});
afterAll(async () => {
  await database?.drop();
});

/** `call`'s rejection, and how long it took. */
async function failureOf(call: () => Promise<unknown>): Promise<{ error: unknown; elapsedMs: number }> {
  const startedAt = Date.now();
  try {
    await call();
  } catch (error) {
    return { error, elapsedMs: Date.now() - startedAt };
  }
  throw new Error('expected the call to reject');
}

function expectStoreClosed({ error, elapsedMs }: { error: unknown; elapsedMs: number }): void {
  expect(elapsedMs).toBeLessThan(FAST_MS);
  expect(StoreError.isInstance(error)).toBe(true);
  expect(error).toMatchObject({ code: 'STORE_ERROR', retryable: false, data: { condition: 'STORE_CLOSED' } });
  expect(isStoreClosedError(error)).toBe(true);
}

describe('a closed store fails fast with STORE_CLOSED', () => {
  it('PostgresStateStore: loadState (and a write) after close()', async () => {
    const store = new PostgresStateStore({ connectionString: database.url });
    await store.createSession('closed-1', { agentType: 'a' });
    await store.close();
    expectStoreClosed(await failureOf(() => store.loadState('closed-1')));
    expectStoreClosed(await failureOf(() => store.createSession('closed-2', { agentType: 'a' })));
  });

  it('PostgresStateStore: a call made while close() waits for a busy connection', async () => {
    const store = new PostgresStateStore({ connectionString: database.url });
    await store.createSession('closed-busy', { agentType: 'a' });
    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    try {
      // Hold the session row so a write keeps its pooled connection busy; close() then waits for it.
      await locker.query('BEGIN');
      await locker.query("SELECT 1 FROM __agents_sessions WHERE session_id = 'closed-busy' FOR UPDATE");
      const busy = store.saveState('closed-busy', { metadata: { held: 'yes' } }).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const closing = store.close();
      expectStoreClosed(await failureOf(() => store.loadState('closed-busy')));
      await locker.query('ROLLBACK');
      await busy;
      await closing;
    } finally {
      await locker.end();
    }
  });

  it('PostgresStreamManager: every method after close()', async () => {
    const streams = new PostgresStreamManager({ connectionString: database.url });
    const writer = await streams.createWriter('closed-stream', 'closed-stream', 'a');
    await writer.close();
    await streams.close();
    expectStoreClosed(await failureOf(() => streams.getInfo('closed-stream')));
    expectStoreClosed(await failureOf(() => streams.createWriter('closed-stream', 'closed-stream', 'a')));
    expectStoreClosed(await failureOf(() => streams.createReader('closed-stream')));
    expectStoreClosed(await failureOf(() => streams.endStream('closed-stream')));
  });

  it.skipIf(!redisAvailable())('RedisStreamManager: every method after close()', async () => {
    const streams = new RedisStreamManager({ url: testRedisUrl() });
    const writer = await streams.createWriter('closed-redis-stream', 'closed-redis-stream', 'a');
    await writer.close();
    await streams.close();
    expectStoreClosed(await failureOf(() => streams.getInfo('closed-redis-stream')));
    expectStoreClosed(await failureOf(() => streams.createWriter('closed-redis-stream', 'closed-redis-stream', 'a')));
    expectStoreClosed(await failureOf(() => streams.createReader('closed-redis-stream')));
  });
});

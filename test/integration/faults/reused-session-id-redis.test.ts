/**
 * Redis streams outlive the Postgres database (a reset, or a session row deleted): a session created fresh under an id
 * whose Redis stream the old session ended must run, and the stream must show only the new run's chunks.
 */
import { randomUUID } from 'node:crypto';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { RedisStreamManager } from '../../../src/stream/redis/redis-stream-manager.js';
import { readStream } from '../../support/read-stream.js';
import { createTestDatabase, redisAvailable, testRedisUrl, type TestDatabase } from '../../support/services.js';
import { textOf } from '../executor/executor-test-kit.js';

let reply = 'unset';
const llm = new MockLLMAdapter(() => ({ type: 'text', text: reply }));
const agent = defineAgent({ name: 'reused_id_redis_agent', systemPrompt: 'Answer.' });
const keyPrefix = `test:reused-session-id:${randomUUID()}:`;

describe.skipIf(!redisAvailable())('a session id reused after the database lost its session (Redis streams)', () => {
  let database: TestDatabase;
  let stateStore: PostgresStateStore;
  let streamManager: RedisStreamManager;
  let executor: DBOSAgentExecutor;

  beforeAll(async () => {
    database = await createTestDatabase('reused_session_id_redis');
    stateStore = new PostgresStateStore({ connectionString: database.url });
    await stateStore.migrate();
    streamManager = new RedisStreamManager({ url: testRedisUrl() }, { keyPrefix });
    executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter: llm });
    DBOS.setConfig({ name: 'helix-test', systemDatabaseUrl: database.url, applicationVersion: 'test', logLevel: 'warn' });
    await DBOS.launch();
  });
  afterAll(async () => {
    await DBOS.shutdown();
    await Promise.allSettled([stateStore?.close(), streamManager?.close()]);
    const admin = new Redis(testRedisUrl());
    const keys = await admin.keys(`${keyPrefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
    await database?.drop();
  });

  it('runs the new session to completion over the ended stream; the stream holds only the new run', async () => {
    const sessionId = 'reused-after-reset';
    reply = 'first answer';
    expect(await (await executor.execute(agent, 'first', { sessionId })).result()).toMatchObject({ status: 'completed' });
    expect(await streamManager.getInfo(sessionId)).toMatchObject({ status: 'ended' });
    await stateStore.deleteSession(sessionId); // the database forgot the session; Redis keeps its ended stream

    reply = 'second answer';
    const handle = await executor.execute(agent, 'second', { sessionId });
    expect(await handle.result()).toMatchObject({ status: 'completed', output: 'second answer' });
    const chunks = await readStream(streamManager, sessionId);
    expect(textOf(chunks)).toBe('second answer');
    expect(chunks.filter((chunk) => chunk.type === 'output')).toHaveLength(1);
    expect(await streamManager.getInfo(sessionId)).toMatchObject({ status: 'ended', output: 'second answer' });
  });
});

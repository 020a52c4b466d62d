/**
 * `dbos workflow resume` of a run cancelled through DBOS, with the session's stream in Redis: the resumed run reopens
 * the ended Redis stream at its first live step, and readers see the continuation after the ABORTED chunk.
 */
import { randomUUID } from 'node:crypto';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { RedisStreamManager } from '../../../src/stream/redis/redis-stream-manager.js';
import { createTestDatabase, redisAvailable, testRedisUrl, type TestDatabase } from '../../support/services.js';
import { scriptedLLM, sleep } from '../executor/executor-test-kit.js';
import { createGate, expectResumedStream } from './run-control-kit.js';

const cancelled = createGate();
let slowRuns = 0;
const slowTool = defineTool({
  name: 'slow_tool',
  description: 'Stops when cancelled; runs to its end once resumed',
  parameters: z.object({}),
  execute: async (_input, context) => {
    slowRuns += 1;
    if (slowRuns > 1) return 'slow result';
    void cancelled.pass();
    if (!context.abortSignal.aborted) await new Promise<void>((resolve) => context.abortSignal.addEventListener('abort', () => resolve(), { once: true }));
    throw new Error('stopped');
  },
});
const agent = defineAgent({ name: 'dbos_resume_redis_agent', systemPrompt: 'Work.', tools: [slowTool], maxSteps: 4 });
const llm = scriptedLLM();
const keyPrefix = `test:dbos-resume:${randomUUID()}:`;

describe.skipIf(!redisAvailable())('an operator resumes a cancelled run through DBOS (Redis streams)', () => {
  let database: TestDatabase;
  let stateStore: PostgresStateStore;
  let streamManager: RedisStreamManager;
  let executor: DBOSAgentExecutor;

  beforeAll(async () => {
    database = await createTestDatabase('dbos_resume_redis');
    stateStore = new PostgresStateStore({ connectionString: database.url });
    await stateStore.migrate();
    streamManager = new RedisStreamManager({ url: testRedisUrl() }, { keyPrefix });
    executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter: llm.adapter });
    DBOS.setConfig({ name: 'helix-test', systemDatabaseUrl: database.url, applicationVersion: 'test', logLevel: 'warn' });
    await DBOS.launch();
  });
  afterAll(async () => {
    cancelled.open();
    await DBOS.shutdown();
    await Promise.allSettled([stateStore?.close(), streamManager?.close()]);
    const admin = new Redis(testRedisUrl());
    const keys = await admin.keys(`${keyPrefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
    await database?.drop();
  });

  it('cancelled mid-tool, then resumed: the Redis stream is reactivated and ends with the completion', async () => {
    const sessionId = 'resume-redis';
    llm.use((_input, callIndex) => (callIndex === 0 ? { type: 'tool_calls', toolCalls: [{ id: 'slow-1', name: 'slow_tool', arguments: {} }] } : { type: 'text', text: 'All done.' }));
    const handle = await executor.execute(agent, 'go', { sessionId });
    await cancelled.entered;
    await DBOS.cancelWorkflow(handle.workflowId);
    for (let waited = 0; (await stateStore.loadState(sessionId))?.failureReason !== 'aborted'; waited += 20) {
      expect(waited).toBeLessThan(5_000);
      await sleep(20);
    }
    expect(await streamManager.getInfo(sessionId)).toMatchObject({ status: 'ended' });

    await DBOS.resumeWorkflow(handle.workflowId);
    const completed = { status: 'completed', output: 'All done.' };
    expect(await DBOS.retrieveWorkflow(handle.workflowId).getResult()).toMatchObject(completed);
    expect(await handle.result()).toMatchObject(completed);
    expect(await stateStore.loadState(sessionId)).toMatchObject({ status: 'completed' });
    expect(slowRuns).toBe(2);
    expect(llm.adapter.callCount).toBe(2);

    await expectResumedStream(streamManager, sessionId, { toolCallId: 'slow-1', result: 'slow result', text: 'All done.' });
  });
});

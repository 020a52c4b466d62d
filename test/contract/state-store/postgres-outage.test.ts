import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../../src/errors/index.js';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import type { StreamChunk } from '../../../src/types/stream.js';
import { PostgresUsageStore } from '../../../src/usage/postgres/postgres-usage-store.js';
import { startOwnPostgres, type OwnPostgresServer } from '../../support/own-postgres.js';
import { readStream } from '../../support/read-stream.js';

// This file starts its own embedded Postgres (never the shared test server) and takes it down for real:
// a 3 s stop/start, then backends terminated over and over, while stores and streams keep working.
const retry = { budgetMs: 30_000, initialDelayMs: 20, maxDelayMs: 250 };
const STEPS = 25;
let server: OwnPostgresServer;
let store: PostgresStateStore;
let usage: PostgresUsageStore;
let streams: PostgresStreamManager;
let readerSide: PostgresStreamManager;

beforeAll(async () => {
  server = await startOwnPostgres('postgres-outage');
  store = new PostgresStateStore({ connectionString: server.url }, { retry });
  await store.migrate();
  usage = new PostgresUsageStore({ connectionString: server.url, retry });
  streams = new PostgresStreamManager({ connectionString: server.url }, { retry, batchSize: 5 });
  // No polling to fall back on: live readers must be woken by NOTIFY and by the LISTEN connection's reconnect.
  readerSide = new PostgresStreamManager({ connectionString: server.url }, { retry, pollIntervalMs: 60_000 });
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([store.close(), usage.close(), streams.close(), readerSide.close()]);
  await server.destroy();
});

/** One agent-like session: every step commits, appends, counts, patches state, records usage and streams a chunk. */
async function driveSession(sessionId: string): Promise<void> {
  await store.createSession(sessionId, { agentType: 'assistant', customState: { items: [] } });
  await store.createRun(sessionId, { runId: 'r1', status: 'running', stepCount: 0, startSequence: 0, startedAt: Date.now() });
  const writer = await streams.createWriter(sessionId, 'agent-1', 'assistant');
  for (let step = 1; step <= STEPS; step += 1) {
    await store.saveStateAndPromoteStaging(sessionId, { stepCount: step }, [{ id: `r1:${step}:0`, role: 'assistant', content: `answer ${step}` }], {
      checkpointId: `r1:${step}`,
      runId: 'r1',
      stepCount: step,
    });
    await store.appendMessages(sessionId, [{ role: 'user', content: `follow-up ${step}` }]); // no id: the store assigns one
    await store.incrementResumeCount(sessionId);
    await store.mergeCustomState(sessionId, [{ op: 'add', path: '/items/-', value: step }]);
    await store.setInterruptFlag(sessionId, `stop ${step}`);
    expect(await store.checkInterruptFlag(sessionId)).toEqual({ interrupted: true, reason: `stop ${step}` });
    await usage.record([{ id: `r1:${step}:llm`, sessionId, runId: 'r1', kind: 'llm', name: 'model', step, totalTokens: 10, success: true, createdAt: Date.now() }]);
    await writer.write({ type: 'text_delta', delta: `${step}`, agentId: 'agent-1', agentType: 'assistant', step, timestamp: Date.now() });
    expect((await store.loadState(sessionId))?.stepCount).toBe(step);
  }
  await writer.close();
  expect(await store.compareAndSetStatus(sessionId, ['active'], 'completed')).toMatchObject({ ok: true });
  await store.updateRunStatus(sessionId, 'r1', 'completed', { endedAt: Date.now() });
  await streams.endStream(sessionId);
}


/** Everything each session did is there exactly once, in order. */
async function expectExactlyOnce(sessionId: string, chunks: StreamChunk[]): Promise<void> {
  const state = await store.loadState<{ items: number[] }>(sessionId);
  expect(state).toMatchObject({ status: 'completed', stepCount: STEPS, resumeCount: STEPS });
  expect(state?.customState.items).toEqual(Array.from({ length: STEPS }, (_, index) => index + 1));
  const { messages, total } = await store.getMessages(sessionId, { limit: 1_000 });
  expect(total).toBe(2 * STEPS);
  expect(messages.map((message) => message.content)).toEqual(
    Array.from({ length: STEPS }, (_, index) => [`answer ${index + 1}`, `follow-up ${index + 1}`]).flat(),
  );
  expect((await store.listCheckpoints(sessionId)).length).toBe(STEPS);
  expect((await usage.getSessionUsage(sessionId)).llmCalls).toBe(STEPS);
  expect(chunks.map((chunk) => (chunk.type === 'text_delta' ? chunk.delta : chunk.type))).toEqual(Array.from({ length: STEPS }, (_, index) => `${index + 1}`));
  expect(chunks.map((chunk) => chunk.sequence)).toEqual(Array.from({ length: STEPS }, (_, index) => index + 1));
}

async function runSessions(prefix: string, fault: () => Promise<void>): Promise<void> {
  const ids = Array.from({ length: 4 }, (_, index) => `${prefix}-${index}`);
  const readers = ids.map((id) => readStream(readerSide, id));
  const work = Promise.all(ids.map(driveSession));
  await fault();
  await work;
  const chunks = await Promise.all(readers);
  for (const [index, id] of ids.entries()) await expectExactlyOnce(id, chunks[index] ?? []);
}

describe('Postgres stores and streams ride out a database outage', () => {
  it('Postgres stopped for 3 s and restarted mid-run: every operation completes, nothing lost or duplicated', async () => {
    await runSessions('restart', async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await server.stop();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await server.start();
    });
    expect(readerSide.listenerProcessId).toBeDefined(); // the LISTEN connection came back by itself
  }, 60_000);

  it('backends terminated over and over: every operation completes, nothing lost or duplicated', async () => {
    const admin = new pg.Client({ connectionString: server.url });
    admin.on('error', () => undefined);
    await admin.connect();
    let kills = 0;
    try {
      await runSessions('terminate', async () => {
        for (let round = 0; round < 25; round += 1) {
          await new Promise((resolve) => setTimeout(resolve, 30));
          const killed = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = $1 AND pid <> pg_backend_pid()', [
            'client backend',
          ]);
          kills += killed.rowCount ?? 0;
        }
      });
    } finally {
      await admin.end();
    }
    expect(kills).toBeGreaterThan(25);
  }, 60_000);

  it('when the outage outlasts the budget: a retryable StoreError naming the condition, no SQL, no raw driver error', async () => {
    const impatient = new PostgresStateStore({ connectionString: server.url }, { retry: { budgetMs: 300, initialDelayMs: 20, maxDelayMs: 50 } });
    const impatientUsage = new PostgresUsageStore({ connectionString: server.url, retry: { budgetMs: 300 } });
    await server.stop();
    try {
      for (const attempt of [() => impatient.loadState('gone'), () => impatient.createSession('new', { agentType: 'a' }), () => impatientUsage.listRecords('gone')]) {
        const failure = await attempt().catch((error: unknown) => error);
        expect(StoreError.isInstance(failure)).toBe(true);
        expect((failure as StoreError).retryable).toBe(true);
        expect((failure as StoreError).data).toMatchObject({ condition: expect.stringMatching(/^(ECONNREFUSED|57P03|ConnectionTerminated)$/), retryable: true });
        expect((failure as StoreError).message).not.toMatch(/SELECT|INSERT/);
      }
    } finally {
      await server.start();
      await Promise.all([impatient.close(), impatientUsage.close()]);
    }
  }, 30_000);
});

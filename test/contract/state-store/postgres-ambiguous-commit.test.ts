import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { PostgresUsageStore } from '../../../src/usage/postgres/postgres-usage-store.js';
import { FaultProxy, postgresReplyComplete } from '../../support/fault-proxy.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

// The worst transient failure: the write (or its COMMIT) landed, then the connection dropped before the
// reply. A proxy in front of the real server cuts exactly that reply; each method must retry without
// applying its write twice or reporting its own write as a conflict.
let database: TestDatabase;
let proxy: FaultProxy & { port: number };
let store: PostgresStateStore;
let usage: PostgresUsageStore;

beforeAll(async () => {
  database = await createTestDatabase('ambiguous_commit');
  const direct = new PostgresStateStore({ connectionString: database.url });
  await direct.migrate();
  await direct.close();
  proxy = await FaultProxy.start(Number(new URL(database.url).port));
  const viaProxy = new URL(database.url);
  viaProxy.port = String(proxy.port);
  const retry = { budgetMs: 10_000, initialDelayMs: 10, maxDelayMs: 100 };
  store = new PostgresStateStore({ connectionString: viaProxy.toString() }, { retry });
  usage = new PostgresUsageStore({ connectionString: viaProxy.toString(), retry });
});

afterAll(async () => {
  await Promise.all([store.close(), usage.close()]);
  await proxy.close();
  await database.drop();
});

/** Run `operation` with the reply to the first request containing `marker` cut after the server finished it. */
async function withLostReply<T>(marker: string, operation: () => Promise<T>): Promise<T> {
  const droppedBefore = proxy.dropped;
  proxy.dropReplyTo(marker, postgresReplyComplete);
  const result = await operation();
  expect(proxy.dropped).toBe(droppedBefore + 1);
  return result;
}

async function session(sessionId: string): Promise<void> {
  await store.createSession(sessionId, { agentType: 'assistant', customState: { items: [] } });
}

describe('PostgresStateStore and PostgresUsageStore after a lost reply (write applied, client never told)', () => {
  it('createSession returns the session it created instead of SESSION_ALREADY_EXISTS', async () => {
    const created = await withLostReply('lost-create', () => store.createSession('lost-create', { agentType: 'assistant' }));
    expect(created.sessionId).toBe('lost-create');
    expect(await store.loadState('lost-create')).toMatchObject({ agentType: 'assistant', version: 1 });
  });

  it('mergeCustomState applies a non-idempotent patch once', async () => {
    await session('lost-merge');
    const { newVersion } = await withLostReply('COMMIT', () => store.mergeCustomState('lost-merge', [{ op: 'add', path: '/items/-', value: 'once' }]));
    expect(newVersion).toBe(2);
    expect(await store.loadState('lost-merge')).toMatchObject({ version: 2, customState: { items: ['once'] } });
  });

  it('saveState with expectedVersion does not report its own write as stale', async () => {
    await session('lost-save');
    expect(await withLostReply('COMMIT', () => store.saveState('lost-save', { stepCount: 7 }, { expectedVersion: 1 }))).toEqual({ newVersion: 2 });
    expect(await store.loadState('lost-save')).toMatchObject({ version: 2, stepCount: 7 });
  });

  it('compareAndSetStatus reports its own win', async () => {
    await session('lost-cas');
    expect(await withLostReply('lost-cas', () => store.compareAndSetStatus('lost-cas', ['active'], 'completed'))).toEqual({ ok: true, newVersion: 2 });
    expect(await store.compareAndSetStatus('lost-cas', ['active'], 'failed')).toMatchObject({ ok: false, currentStatus: 'completed' });
  });

  it('incrementResumeCount adds one, once', async () => {
    await session('lost-count');
    expect(await withLostReply('lost-count', () => store.incrementResumeCount('lost-count'))).toBe(1);
    expect(await store.incrementResumeCount('lost-count')).toBe(2);
  });

  it('checkInterruptFlag still reports the interrupt it consumed', async () => {
    await session('lost-interrupt');
    await store.setInterruptFlag('lost-interrupt', 'user pressed stop');
    expect(await withLostReply('lost-interrupt', () => store.checkInterruptFlag('lost-interrupt'))).toEqual({ interrupted: true, reason: 'user pressed stop' });
    expect(await store.checkInterruptFlag('lost-interrupt')).toEqual({ interrupted: false });
  });

  it('appendMessages without ids appends once; the step commit is idempotent by checkpoint id', async () => {
    await session('lost-append');
    expect(await withLostReply('COMMIT', () => store.appendMessages('lost-append', [{ role: 'user', content: 'hi' }]))).toBe(1);
    const commit = await withLostReply('COMMIT', () =>
      store.saveStateAndPromoteStaging('lost-append', { stepCount: 1 }, [{ role: 'assistant', content: 'hello' }], { checkpointId: 'r1:1', runId: 'r1', stepCount: 1 }),
    );
    expect(commit).toMatchObject({ newVersion: 2, checkpointId: 'r1:1' });
    const { messages } = await store.getMessages('lost-append');
    expect(messages.map((message) => message.content)).toEqual(['hi', 'hello']);
    expect(await store.listCheckpoints('lost-append')).toHaveLength(1);
  });

  it('cloneSession returns its clone instead of SESSION_ALREADY_EXISTS', async () => {
    await session('lost-clone-source');
    const clone = await withLostReply('COMMIT', () => store.cloneSession('lost-clone-source', 'lost-clone-target'));
    expect(clone.sessionId).toBe('lost-clone-target');
  });

  it('usage records are stored once', async () => {
    const record = { id: 'r1:1:llm', sessionId: 'lost-usage', runId: 'r1', kind: 'llm' as const, name: 'model', step: 1, totalTokens: 5, success: true, createdAt: 1 };
    await withLostReply('lost-usage', () => usage.record([record]));
    expect(await usage.getSessionUsage('lost-usage')).toMatchObject({ llmCalls: 1, totalTokens: 5 });
  });
});

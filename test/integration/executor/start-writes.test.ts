/**
 * The writes of a run's start (`withStartWrites`): one transaction when the state store and stream manager share a
 * database (a throw leaves nothing; a reactivation reaches this process's writers only at commit), each on its own
 * when they do not (another database, or in-memory components).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalError } from '../../../src/errors/index.js';
import { withStartWrites, type StartWriter } from '../../../src/executor/start-writes.js';
import { RunLauncher, type PlannedRun } from '../../../src/executor/run-launcher.js';
import type { DBOSAgentExecutorConfig } from '../../../src/executor/types.js';
import type { HookManager } from '../../../src/hooks/index.js';
import type { RunRecord } from '../../../src/types/session.js';
import { InMemoryStateStore } from '../../../src/store/memory/in-memory-state-store.js';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { InMemoryStreamManager } from '../../../src/stream/memory/in-memory-stream-manager.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

let here: TestDatabase;
let elsewhere: TestDatabase;
let stateStore: PostgresStateStore;
let streamManager: PostgresStreamManager;
let otherStreams: PostgresStreamManager;

const run = (runId: string) => ({ runId, status: 'running' as const, stepCount: 0, startSequence: 0, startedAt: 1 });
const failure = (): never => {
  throw new InternalError('the start fails after its writes');
};

beforeAll(async () => {
  [here, elsewhere] = await Promise.all([createTestDatabase('start_writes'), createTestDatabase('start_writes_other')]);
  stateStore = new PostgresStateStore({ connectionString: here.url });
  await stateStore.migrate();
  const otherStore = new PostgresStateStore({ connectionString: elsewhere.url });
  await otherStore.migrate();
  await otherStore.close();
  streamManager = new PostgresStreamManager({ connectionString: here.url });
  otherStreams = new PostgresStreamManager({ connectionString: elsewhere.url });
}, 120_000);

afterAll(async () => {
  await Promise.allSettled([stateStore.close(), streamManager.close(), otherStreams.close()]);
  await Promise.allSettled([here.drop(), elsewhere.drop()]);
});

/**
 * The statements `start` sends on the connection of its transaction (BEGIN … COMMIT), as `issued` and `answered`
 * events in order: one round trip when every statement is issued before the first answer.
 */
async function statementsOf(start: () => Promise<unknown>): Promise<string[]> {
  const events: string[] = [];
  const query = Reflect.get(pg.Client.prototype, 'query') as (...args: unknown[]) => unknown;
  const inTransaction = new Set<object>(); // the client between its BEGIN and COMMIT
  Reflect.set(pg.Client.prototype, 'query', function (this: object, ...args: unknown[]) {
    const config = args[0] as { text?: string } | string;
    const text = (typeof config === 'string' ? config : (config.text ?? '')).replace(/\s+/g, ' ').trim();
    if (text.startsWith('BEGIN')) inTransaction.add(this);
    if (!inTransaction.has(this)) return query.apply(this, args);
    const label = text.slice(0, 40);
    events.push(`issued ${label}`);
    if (text === 'COMMIT') inTransaction.delete(this);
    const answer = query.apply(this, args) as Promise<unknown>;
    void answer.then(
      () => events.push(`answered ${label}`),
      () => events.push(`failed ${label}`),
    );
    return answer;
  });
  try {
    await start();
  } finally {
    Reflect.set(pg.Client.prototype, 'query', query);
  }
  return events;
}

const launcher = new RunLauncher({} as DBOSAgentExecutorConfig, {} as HookManager, () => ({}) as never);

/** A fresh turn of `sessionId` as `execute()` plans it (`previous`: the session's latest run). */
function plannedTurn(sessionId: string, runId: string, previous: RunRecord | null): PlannedRun {
  const input = {
    sessionId,
    runId,
    agentType: 'assistant',
    streamId: sessionId,
    workflowId: `wf-${runId}`,
    startSequence: 0,
    rootSessionId: sessionId,
    warmWindowMs: 1,
    userMessage: { id: `${runId}:0:0`, role: 'user' as const, content: runId },
    journal: { format: 2 as const, journal: 'fused' as const },
  };
  return { input, previous, stream: null };
}

describe('withStartWrites', () => {
  it('one database: a first turn’s start (7 statements) and a later turn’s (8: its swap, reactivation and state write) are each one round trip', async () => {
    const firstTurn = (writes: StartWriter) =>
      writes
        .createSession('start-trips', { agentType: 'assistant', status: 'active', streamId: 'start-trips' })
        .then(() => launcher.recordRun(writes, plannedTurn('start-trips', 'r1', null), { sessionCreated: true }));
    const first = await statementsOf(() => withStartWrites({ stateStore, streamManager }, firstTurn));
    await stateStore.updateRunStatus('start-trips', 'r1', 'completed');
    await stateStore.updateStatus('start-trips', 'completed');
    await streamManager.endStream('start-trips');
    await stateStore.setInterruptFlag('start-trips', 'stop');
    const { version } = (await stateStore.loadState('start-trips')) ?? { version: 0 };
    const previous = await stateStore.getCurrentRun('start-trips');
    const laterTurn = async (writes: StartWriter) => {
      expect(await writes.compareAndSetStatus('start-trips', ['completed'], 'active', { expectedVersion: version })).toMatchObject({ ok: true });
      await writes.reactivateStream('start-trips');
      return launcher.recordRun(writes, plannedTurn('start-trips', 'r2', previous), { sessionLocked: true });
    };
    const later = await statementsOf(() => withStartWrites({ stateStore, streamManager }, laterTurn));
    for (const [turn, events, statements] of [['first', first, 7], ['later', later, 8]] as const) {
      const issued = events.filter((event) => event.startsWith('issued'));
      expect(issued, `${turn} turn: ${events.join(' | ')}`).toHaveLength(statements);
      // One round trip: every statement went out before the first answer came back.
      expect(events.slice(0, issued.length), `${turn} turn: ${events.join(' | ')}`).toEqual(issued);
    }
    expect(await stateStore.loadState('start-trips')).toMatchObject({ status: 'active', stepCount: 0 });
    expect(await stateStore.isInterruptRequested('start-trips')).toBe(false);
    expect(await stateStore.getCurrentRun('start-trips')).toMatchObject({ runId: 'r2', turn: 2 });
    expect((await stateStore.getMessages('start-trips')).messages.map((message) => message.content)).toEqual(['r1', 'r2']);
    expect(await streamManager.getInfo('start-trips')).toMatchObject({ status: 'active' });
  });

  it('one database: the session, the stream reactivation and the run commit together; a throw leaves none of them', async () => {
    const writer = await streamManager.createWriter('start-one', 'start-one', 'assistant');
    await writer.close();
    await streamManager.endStream('start-one');
    const start = withStartWrites({ stateStore, streamManager }, async (writes) => {
      await writes.createSession('start-one', { agentType: 'assistant', status: 'active', streamId: 'start-one' });
      await writes.reactivateStream('start-one');
      await writes.createRun('start-one', run('r1'));
      failure();
    });
    await expect(start).rejects.toThrow('the start fails');
    expect(await stateStore.loadState('start-one')).toBeNull();
    expect(await streamManager.getInfo('start-one')).toMatchObject({ status: 'ended' });

    await withStartWrites({ stateStore, streamManager }, async (writes) => {
      await writes.createSession('start-one', { agentType: 'assistant', status: 'active', streamId: 'start-one' });
      await writes.reactivateStream('start-one');
      await writes.createRun('start-one', run('r1'));
    });
    expect(await stateStore.getCurrentRun('start-one')).toMatchObject({ runId: 'r1', status: 'running' });
    expect(await streamManager.getInfo('start-one')).toMatchObject({ status: 'active' });
    const again = await streamManager.createWriter('start-one', 'start-one', 'assistant');
    await again.write({ type: 'text_delta', delta: 'after the start', agentId: 'start-one', agentType: 'assistant', step: 1, timestamp: 1 });
    await again.close();
    expect(await streamManager.getInfo('start-one')).toMatchObject({ chunkCount: 1 });
  });

  it('one database: a reactivation of a stream that does not exist fails the start with its own error, first, leaving nothing', async () => {
    await stateStore.createSession('start-taken', { agentType: 'assistant', status: 'completed' });
    const lost = withStartWrites({ stateStore, streamManager }, async (writes) => {
      await writes.createSession('start-lost', { agentType: 'assistant', status: 'active' });
      await writes.reactivateStream('start-lost-stream');
      await writes.createRun('start-lost', run('r1'));
    });
    await expect(lost).rejects.toMatchObject({ code: 'STREAM_NOT_FOUND' });
    // Refused by error, not by a check of its answer: a COMMIT sent behind it must not commit the session.
    expect(await stateStore.loadState('start-lost')).toBeNull();
    // A later write that refuses too (a taken session id): the reactivation, written first, is still the failure.
    const both = withStartWrites({ stateStore, streamManager }, async (writes) => {
      await writes.createSession('start-lost', { agentType: 'assistant', status: 'active' });
      await writes.reactivateStream('start-lost-stream');
      await writes.createSession('start-taken', { agentType: 'assistant', status: 'active' });
      await writes.createRun('start-lost', run('r1'));
    });
    await expect(both).rejects.toMatchObject({ code: 'STREAM_NOT_FOUND' });
    expect(await stateStore.loadState('start-lost')).toBeNull();
    expect(await stateStore.loadState('start-taken')).toMatchObject({ status: 'completed' });
  });

  it('one database: a later turn’s swap clears the interrupt flag with it; a lost swap (sent ahead) is answered lost, as apart, leaving nothing', async () => {
    await stateStore.createSession('start-turn', { agentType: 'assistant', status: 'completed' });
    await stateStore.setInterruptFlag('start-turn', 'stop');
    const { version } = (await stateStore.loadState('start-turn')) ?? { version: 0 };
    const takeAt = (expectedVersion: number) =>
      withStartWrites({ stateStore, streamManager }, async (writes) => {
        const swapped = await writes.compareAndSetStatus('start-turn', ['completed'], 'active', { expectedVersion });
        if (!swapped.ok) return swapped;
        await writes.createRun('start-turn', run('r1'));
        return swapped;
      });
    expect(await takeAt(version - 1)).toEqual({ ok: false, currentStatus: 'completed', currentVersion: version });
    expect(await stateStore.getCurrentRun('start-turn')).toBeNull();
    expect(await stateStore.isInterruptRequested('start-turn')).toBe(true);
    expect(await takeAt(version)).toMatchObject({ ok: true });
    expect(await stateStore.loadState('start-turn')).toMatchObject({ status: 'active', version: version + 1 });
    expect(await stateStore.isInterruptRequested('start-turn'), 'cleared with the swap').toBe(false);
    expect(await stateStore.getCurrentRun('start-turn')).toMatchObject({ runId: 'r1' });
  });

  it('two databases: each write on its own (what committed before a throw stays)', async () => {
    const start = withStartWrites({ stateStore, streamManager: otherStreams }, async (writes) => {
      await writes.createSession('start-two', { agentType: 'assistant', status: 'active' });
      failure();
    });
    await expect(start).rejects.toThrow('the start fails');
    expect(await stateStore.loadState('start-two')).toMatchObject({ status: 'active' });
  });

  it('in-memory components: each write on its own', async () => {
    const memory = { stateStore: new InMemoryStateStore(), streamManager: new InMemoryStreamManager() };
    const start = withStartWrites(memory, async (writes) => {
      await writes.createSession('start-memory', { agentType: 'assistant', status: 'active' });
      await writes.createRun('start-memory', run('r1'));
      failure();
    });
    await expect(start).rejects.toThrow('the start fails');
    expect(await memory.stateStore.getCurrentRun('start-memory')).toMatchObject({ runId: 'r1' });
  });
});

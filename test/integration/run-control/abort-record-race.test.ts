import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStreamWriter, recordRunAborted, type AbortRecord } from '../../../src/steps/aborted-run.js';
import type { SessionStateStore } from '../../../src/store/state-store.js';
import { PostgresStreamManager } from '../../../src/stream/index.js';
import { openStoreDatabase, type StoreDatabase } from '../../support/store-database.js';
import { readStream } from '../../support/read-stream.js';
import { recordCancelledRun } from '../../../src/steps/dbos-cancel.js';
import type { StreamManager } from '../../../src/stream/stream-manager.js';
import { createGate, type Gate } from './run-control-kit.js';

let db: StoreDatabase;
let streams: PostgresStreamManager;
beforeAll(async () => {
  db = await openStoreDatabase('abort_race');
  streams = new PostgresStreamManager({ connectionString: db.database.url });
  await streams.migrate();
});
afterAll(async () => {
  await streams?.close();
  await db?.close();
});

/** A session with a running run and a stream holding one chunk. */
async function runningSession(sessionId: string): Promise<void> {
  await db.store.createSession(sessionId, { agentType: 'racer' });
  await db.store.updateStatus(sessionId, 'active');
  await db.store.createRun(sessionId, { runId: 'r1', status: 'running', stepCount: 1, startSequence: 0, startedAt: Date.now() });
  const writer = await streams.createWriter(sessionId, sessionId, 'racer');
  await writer.write({ type: 'text_delta', delta: 'working', agentId: sessionId, agentType: 'racer', step: 1, timestamp: Date.now() });
  await writer.flush();
}

/** The cancel of run r1 of `sessionId` as a DBOS cancel's writer records it. */
function cancelOf(sessionId: string): AbortRecord {
  return {
    sessionId,
    runId: 'r1',
    stepCount: 1,
    error: 'ABORTED: cancelled through DBOS',
    now: Date.now(),
    stream: openStreamWriter(streams, { streamId: sessionId, sessionId, agentType: 'racer' }),
    endStream: (streamId) => streams.endStream(streamId).catch(() => undefined),
  };
}

/** `target` with one method replaced by `replace(original)` (the other methods bound to `target`). */
function withMethod<T extends object>(target: T, name: keyof T, replace: (original: (...args: any[]) => Promise<any>) => unknown): T {
  return new Proxy(target, {
    get: (object, property) => {
      const value: unknown = Reflect.get(object, property, object);
      const bound = typeof value === 'function' ? (value as (...args: any[]) => Promise<any>).bind(object) : value;
      return property === name ? replace(bound as (...args: any[]) => Promise<any>) : bound;
    },
  });
}

/** A stream manager whose writers wait at `gate` before each write (a writer held before its ABORTED chunk). */
function writesHeldAt(gate: Gate): StreamManager {
  return withMethod(streams as StreamManager, 'createWriter', (createWriter) => async (...args: unknown[]) => {
    const writer = await createWriter(...args);
    return withMethod(writer, 'write', (write) => async (...chunk: unknown[]) => {
      await gate.pass();
      return write(...chunk);
    });
  });
}

/** Two writers recording the same cancel at once, as the cancelled run and a stuck-run repair do. */
async function recordTwice(store: SessionStateStore, sessionId: string): Promise<void> {
  await Promise.all([recordRunAborted(store, cancelOf(sessionId)), recordRunAborted(store, cancelOf(sessionId))]);
}

describe('a run end recorded by two writers at once', () => {
  it('is recorded once: one ABORTED chunk, run aborted, session failed (aborted)', async () => {
    await runningSession('race-cas');
    await recordTwice(db.store, 'race-cas');
    const chunks = await readStream(streams, 'race-cas');
    expect(chunks.filter((chunk) => chunk.type === 'error' && chunk.code === 'ABORTED')).toHaveLength(1);
    expect(await db.store.getRun('race-cas', 'r1')).toMatchObject({ status: 'aborted', completionReason: 'aborted' });
    expect(await db.store.loadState('race-cas')).toMatchObject({ status: 'failed', failureReason: 'aborted' });
  });

  it('on a store without compareAndSetRunStatus the stream still keeps one ABORTED chunk (the chunk is keyed)', async () => {
    await runningSession('race-key');
    const withoutCas = new Proxy(db.store, {
      get: (target, property) => {
        if (property === 'compareAndSetRunStatus') return undefined;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as SessionStateStore;
    expect(typeof withoutCas.compareAndSetRunStatus).toBe('undefined');
    await recordTwice(withoutCas, 'race-key');
    const chunks = await readStream(streams, 'race-key');
    expect(chunks.filter((chunk) => chunk.type === 'error' && chunk.code === 'ABORTED')).toHaveLength(1);
  });

  it('a late writer, after a retry started a newer run, records only its own run: the session, its calls and stream stay the newer run’s', async () => {
    const sessionId = 'race-late';
    await runningSession(sessionId);
    expect(await recordRunAborted(db.store, cancelOf(sessionId))).not.toHaveProperty('superseded');
    // As retry() does: the session taken back, its stream reactivated, a newer run waiting for an approval.
    await db.store.updateStatus(sessionId, 'active');
    await streams.reactivateStream(sessionId);
    await db.store.createRun(sessionId, { runId: 'r2', status: 'running', stepCount: 0, startSequence: 3, startedAt: Date.now(), previousRunId: 'r1' });
    const call = { toolCallId: 'c2', toolName: 'pay', kind: 'approval' as const, input: {}, ownerSessionId: sessionId, agentType: 'racer', runId: 'r2', createdAt: Date.now() };
    await db.store.saveState(sessionId, { pendingClientToolCalls: { c2: call } });
    const late = await recordRunAborted(db.store, cancelOf(sessionId));
    expect(late.superseded).toBe(true);
    expect(await db.store.loadState(sessionId)).toMatchObject({ status: 'active', pendingClientToolCalls: { c2: { runId: 'r2' } } });
    expect(await streams.getInfo(sessionId)).toMatchObject({ status: 'active' });
    expect(await db.store.getRun(sessionId, 'r2')).toMatchObject({ status: 'running' });
    expect(await db.store.getRun(sessionId, 'r1')).toMatchObject({ status: 'aborted' });
    const writer = await streams.createWriter(sessionId, sessionId, 'racer');
    await writer.write({ type: 'text_delta', delta: 'still going', agentId: sessionId, agentType: 'racer', step: 1, timestamp: Date.now() });
    await writer.flush();
    await streams.endStream(sessionId);
    const chunks = await readStream(streams, sessionId);
    expect(chunks.filter((chunk) => chunk.type === 'error' && chunk.code === 'ABORTED')).toHaveLength(1);
    expect(chunks.at(-1)).toMatchObject({ type: 'text_delta', delta: 'still going' });
  });
});

describe('a DBOS cancel recorded by the cancelled run and by a stuck-run repair', () => {
  it('the writer that checked before the other recorded it writes nothing more: a retry() started meanwhile keeps its session and stream', async () => {
    const sessionId = 'race-retry';
    await runningSession(sessionId);
    const run = { sessionId, runId: 'r1', streamId: sessionId, agentType: 'racer' };
    // The late writer (the run, its tool returned) read its run `running`; it is held at its next read of the store.
    const checked = createGate();
    const writing = createGate();
    let reads = 0;
    const lateStore = withMethod(db.store as SessionStateStore, 'getCurrentRun', (getCurrentRun) => async (...args: unknown[]) => {
      if (reads++ === 0) await checked.pass();
      return getCurrentRun(...args);
    });
    const late = recordCancelledRun(lateStore, writesHeldAt(writing), run);
    await checked.entered;
    // The repair (a later execute() on the session) records the whole cancel meanwhile.
    expect(await recordCancelledRun(db.store, streams, run)).toBe(true);
    expect(await db.store.loadState(sessionId)).toMatchObject({ status: 'failed', failureReason: 'aborted' });
    checked.open();
    // Held before its chunk (or done, having written nothing): a retry() takes the session for a newer run.
    await Promise.race([writing.entered, late]);
    expect((await db.store.compareAndSetStatus(sessionId, ['failed'], 'active')).ok).toBe(true);
    await streams.reactivateStream(sessionId);
    await db.store.createRun(sessionId, { runId: 'r2', status: 'running', stepCount: 0, startSequence: 3, startedAt: Date.now(), previousRunId: 'r1' });
    writing.open();
    await late;
    expect(await db.store.loadState(sessionId)).toMatchObject({ status: 'active' });
    expect(await streams.getInfo(sessionId)).toMatchObject({ status: 'active' });
    expect(await db.store.getRun(sessionId, 'r2')).toMatchObject({ status: 'running' });
    await streams.endStream(sessionId);
    const chunks = await readStream(streams, sessionId);
    expect(chunks.filter((chunk) => chunk.type === 'error' && chunk.code === 'ABORTED')).toHaveLength(1);
  });

  it('the writer that finds the run recorded by the other returns once that record has failed the session (a retry() then works)', async () => {
    const sessionId = 'race-wait';
    await runningSession(sessionId);
    const run = { sessionId, runId: 'r1', streamId: sessionId, agentType: 'racer' };
    const checked = createGate();
    const writing = createGate();
    let reads = 0;
    const loserStore = withMethod(db.store as SessionStateStore, 'getCurrentRun', (getCurrentRun) => async (...args: unknown[]) => {
      if (reads++ === 0) await checked.pass();
      return getCurrentRun(...args);
    });
    let returned = false;
    const loser = recordCancelledRun(loserStore, streams, run).then((recorded) => ((returned = true), recorded));
    await checked.entered;
    // The other writer moves the run to aborted and is held before its chunk, the session still `active`.
    const winner = recordCancelledRun(db.store, writesHeldAt(writing), run);
    await writing.entered;
    checked.open();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(returned).toBe(false);
    writing.open();
    expect(await loser).toBe(true);
    expect(await db.store.loadState(sessionId)).toMatchObject({ status: 'failed', failureReason: 'aborted' });
    expect(await winner).toBe(true);
    const chunks = await readStream(streams, sessionId);
    expect(chunks.filter((chunk) => chunk.type === 'error' && chunk.code === 'ABORTED')).toHaveLength(1);
  });
});

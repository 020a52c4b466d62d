import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStreamWriter, recordRunAborted, type AbortRecord } from '../../../src/steps/aborted-run.js';
import type { SessionStateStore } from '../../../src/store/state-store.js';
import { PostgresStreamManager } from '../../../src/stream/index.js';
import { openStoreDatabase, type StoreDatabase } from '../../support/store-database.js';
import { readStream } from '../../support/read-stream.js';

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

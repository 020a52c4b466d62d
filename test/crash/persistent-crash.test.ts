/**
 * SIGKILL drills of persistent sessions: killed in the middle of a turn with another message queued (a recovery-only
 * process finishes the turn and the queued one, each exactly once, without paying a finished LLM step again), and a
 * parked session restarted by a message from a new process with another applicationVersion.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readPersistentMarker } from '../../src/orchestration/persistent-session.js';
import { useDrill } from './support/drill.js';
import { waitForSignal } from './support/drill-flow.js';
import { PERSISTENT_DRILL_TABLES, type PersistentWorkerConfig } from './worker/persistent-worker-config.js';

const SCRIPT = fileURLToPath(new URL('./worker/persistent-worker.ts', import.meta.url));

const drill = useDrill('crash_persistent', { tables: PERSISTENT_DRILL_TABLES, setupTimeoutMs: 60_000 });
const { workers, count } = drill;

const config = (extra: Omit<PersistentWorkerConfig, 'databaseUrl'>): PersistentWorkerConfig => ({ databaseUrl: drill.database.url, ...extra });

describe('crash drill: SIGKILL around persistent sessions', () => {
  it('killed during a turn with a message queued: after recovery both turns complete once, the finished LLM step is not paid again', async () => {
    const sessionId = 'pcrash-1';
    const doomed = workers.spawn('doomed persistent worker', 'pcrash-exec-1', config({ mode: 'start', sessionId, messages: ['lookup alpha', 'hello'], blockTools: true }), SCRIPT);
    const first = await doomed.waitForEvent('started', 30_000, (event) => event.sessionId === sessionId);
    const queued = (await doomed.waitForEvent('started', 30_000, (event) => event.runId !== first.runId)).runId;
    await waitForSignal(doomed, 'the blocked lookup', async () => (await count('SELECT count(*) FROM persistent_tool_runs WHERE session_id = $1', [sessionId])) === 1);
    await doomed.kill();

    const recoverer = workers.spawn('recover persistent worker', 'pcrash-exec-1', config({ mode: 'recover', sessionId, messages: [], runIds: [first.runId, queued] }), SCRIPT);
    const firstResult = await recoverer.waitForEvent('result', 45_000, (event) => event.sessionId === first.runId);
    const queuedResult = await recoverer.waitForEvent('result', 45_000, (event) => event.sessionId === queued);
    expect(firstResult.result).toMatchObject({ status: 'completed', output: 'done: lookup alpha', workflowId: 'drill_chat__pcrash-1__persistent' });
    expect(queuedResult.result).toMatchObject({ status: 'completed', output: 'echo: lookup alpha | hello' });
    expect(await recoverer.waitForExit(15_000)).toBe(0);

    // The interrupted tool step ran again (at least once); the LLM step before it was not paid twice; each message ran once.
    expect(await count('SELECT count(*) FROM persistent_tool_runs WHERE session_id = $1', [sessionId])).toBe(2);
    expect(await count('SELECT count(*) FROM persistent_llm_calls WHERE session_id = $1 AND run_id = $2 AND step = 1', [sessionId, first.runId])).toBe(1);
    expect(await count('SELECT count(*) FROM persistent_llm_calls WHERE session_id = $1 AND run_id = $2', [sessionId, queued])).toBe(1);
    const { runs } = await drill.stateStore.listRuns(sessionId);
    expect(runs.map((run) => [run.runId, run.status])).toEqual([
      [first.runId, 'completed'],
      [queued, 'completed'],
    ]);
    const { messages } = await drill.stateStore.getMessages(sessionId);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
  }, 120_000);

  it('a parked session is restarted by a message from a new process with another applicationVersion', async () => {
    const sessionId = 'pcrash-park';
    const starter = workers.spawn('parking worker', 'pcrash-exec-2', config({ mode: 'start', sessionId, messages: ['first'], persistentWarmWindowMs: 200 }), SCRIPT);
    expect((await starter.waitForEvent('result', 45_000)).result).toMatchObject({ status: 'completed', output: 'echo: first' });
    expect(await starter.waitForExit(15_000)).toBe(0);
    expect(readPersistentMarker((await drill.stateStore.loadState(sessionId))?.metadata)).toMatchObject({ phase: 'closed', endReason: 'parked' });

    const sender = workers.spawn('v2 worker', 'pcrash-exec-3', config({ mode: 'send', sessionId, messages: ['second'], applicationVersion: 'crash-drill-2' }), SCRIPT);
    expect((await sender.waitForEvent('result', 45_000)).result).toMatchObject({
      status: 'completed',
      output: 'echo: first | second',
      workflowId: 'drill_chat__pcrash-park__persistent__restart-1',
    });
    expect(await sender.waitForExit(15_000)).toBe(0);
    const versions = await drill.pool.query<{ workflow_uuid: string; application_version: string; status: string }>(
      `SELECT workflow_uuid, application_version, status FROM dbos.workflow_status WHERE workflow_uuid LIKE 'drill_chat__pcrash-park%' ORDER BY created_at`,
    );
    expect(versions.rows.map((row) => [row.workflow_uuid, row.application_version])).toEqual([
      ['drill_chat__pcrash-park__persistent', 'crash-drill-1'],
      ['drill_chat__pcrash-park__persistent__restart-1', 'crash-drill-2'],
    ]);
  }, 120_000);

  it('close() that gives up on a turn in progress leaves it to recovery: the recovered workflow finishes the turn and ends with shutdown', async () => {
    const sessionId = 'pcrash-close';
    const doomed = workers.spawn('closing worker', 'pcrash-exec-4', config({ mode: 'start', sessionId, messages: ['lookup beta'], blockTools: true, closeTimeoutMs: 300 }), SCRIPT);
    const started = await doomed.waitForEvent('started', 30_000, (event) => event.sessionId === sessionId);
    await doomed.waitForEvent('result', 30_000, (event) => event.sessionId === 'close');
    // close() returned at its deadline: the turn still runs, the workflow is still pending.
    expect((await drill.stateStore.getRun(sessionId, started.runId))?.status).toBe('running');
    expect(readPersistentMarker((await drill.stateStore.loadState(sessionId))?.metadata)).toMatchObject({ phase: 'live' });
    await doomed.kill();

    const recoverer = workers.spawn('recover closing worker', 'pcrash-exec-4', config({ mode: 'recover', sessionId, messages: [], runIds: [started.runId], persistentWarmWindowMs: 60_000 }), SCRIPT);
    expect((await recoverer.waitForEvent('result', 45_000, (event) => event.sessionId === started.runId)).result).toMatchObject({ status: 'completed', output: 'done: lookup beta' });
    // The worker exits once the workflow closed; with a 60 s warm window only the durable shutdown request closes it.
    expect(await recoverer.waitForExit(30_000)).toBe(0);
    expect(readPersistentMarker((await drill.stateStore.loadState(sessionId))?.metadata)).toMatchObject({ phase: 'closed', endReason: 'shutdown' });
    const status = await drill.pool.query<{ status: string }>('SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1', ['drill_chat__pcrash-close__persistent']);
    expect(status.rows.map((row) => row.status)).toEqual(['SUCCESS']);
  }, 120_000);
});

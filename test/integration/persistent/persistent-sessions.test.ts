import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DBOSModeMismatchError } from '../../../src/errors/index.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, scriptedLLM } from '../executor/executor-test-kit.js';
import { chat, lastUserText, markerOf, starts, userTexts } from './persistent-kit.js';

const llm = scriptedLLM();
let runtime: TestRuntime;
let pool: pg.Pool;
beforeAll(async () => {
  runtime = await startTestRuntime('persistent_sessions', llm.adapter);
  pool = new pg.Pool({ connectionString: runtime.database.url, max: 2 });
});
afterAll(async () => {
  await pool?.end();
  await runtime?.shutdown();
});

/** Echo the last user message. */
const echo = () => llm.use((input) => ({ type: 'text', text: `echo: ${lastUserText(input)}` }));

describe('persistent sessions', () => {
  it('runs every message as one turn of the same workflow: a run per turn, stepCount from 0, hooks and streams per turn', async () => {
    echo();
    starts.length = 0;
    const first = await runtime.executor.execute(chat, 'hello', { sessionId: 'p-1', mode: 'persistent' });
    expect(first.workflowId).toBe('chat__p-1__persistent');
    const firstChunks = await collectChunks(first);
    expect(await first.result()).toMatchObject({ status: 'completed', output: 'echo: hello', stepCount: 1, runId: first.runId });
    expect(firstChunks.at(-1)).toMatchObject({ type: 'output', output: 'echo: hello' });
    const state = await runtime.stateStore.loadState('p-1');
    expect(state).toMatchObject({ mode: 'persistent', status: 'completed', metadata: expect.objectContaining({ dbosWorkflowId: 'chat__p-1__persistent' }) });

    const second = await runtime.executor.execute(chat, 'again', { sessionId: 'p-1', mode: 'persistent' });
    expect(second.workflowId).toBe('chat__p-1__persistent');
    const secondChunks = await collectChunks(second);
    expect(await second.result()).toMatchObject({ status: 'completed', output: 'echo: again', stepCount: 1 });
    // The second turn's stream starts after the first turn's chunks.
    expect(secondChunks.some((chunk) => chunk.type === 'output' && chunk.output === 'echo: hello')).toBe(false);
    expect(secondChunks.at(-1)).toMatchObject({ type: 'output', output: 'echo: again' });

    const { runs } = await runtime.stateStore.listRuns('p-1');
    expect(runs.map((run) => [run.turn, run.status, run.stepCount, run.workflowId])).toEqual([
      [1, 'completed', 1, 'chat__p-1__persistent'],
      [2, 'completed', 1, 'chat__p-1__persistent'],
    ]);
    expect(userTexts(llm.adapter.calls.at(-1)!)).toEqual(['hello', 'again']);
    expect(starts.filter((event) => event.sessionId === 'p-1').map((event) => event.runId)).toEqual([first.runId, second.runId]);
    expect((await DBOS.getWorkflowStatus('chat__p-1__persistent'))?.status).toBe('PENDING');
    expect(await markerOf(runtime.stateStore, 'p-1')).toMatchObject({ phase: 'live', generation: 0 });
  });

  it('20 concurrent execute() calls: 20 turns in inbox order, each message seen exactly once', async () => {
    echo();
    await (await runtime.executor.execute(chat, 'open', { sessionId: 'p-20', mode: 'persistent' })).result();
    const handles = await Promise.all(
      Array.from({ length: 20 }, (_, index) => runtime.executor.execute(chat, `m${index}`, { sessionId: 'p-20', mode: 'persistent' })),
    );
    const results = await Promise.all(handles.map((handle) => handle.result()));
    results.forEach((result, index) => expect(result).toMatchObject({ status: 'completed', output: `echo: m${index}` }));
    const seen = llm.adapter.calls.filter((call) => call.sessionId === 'p-20').map(lastUserText);
    expect(seen.toSorted()).toEqual(['open', ...Array.from({ length: 20 }, (_, index) => `m${index}`)].toSorted());
    // Turns ran in the order the inbox received the messages.
    const inbox = await pool.query<{ message_uuid: string }>(
      `SELECT message_uuid FROM dbos.notifications WHERE destination_uuid = $1 AND topic = 'persistent-inbox' ORDER BY created_at_epoch_ms, consumed_by_function_id`,
      ['chat__p-20__persistent'],
    );
    const inboxOrder = inbox.rows.map((row) => row.message_uuid.split('::')[0]);
    const { runs } = await runtime.stateStore.listRuns('p-20');
    expect(runs).toHaveLength(21);
    expect(runs.slice(1).map((run) => run.runId)).toEqual(inboxOrder);
    const { messages } = await runtime.stateStore.getMessages('p-20');
    expect(messages.filter((message) => message.role === 'user')).toHaveLength(21);
  });

  it('throws DBOSModeMismatchError in both directions', async () => {
    echo();
    await (await runtime.executor.execute(chat, 'std', { sessionId: 'p-std' })).result();
    const toPersistent = await runtime.executor.execute(chat, 'x', { sessionId: 'p-std', mode: 'persistent' }).catch((error: unknown) => error);
    expect(DBOSModeMismatchError.isInstance(toPersistent)).toBe(true);
    expect(toPersistent).toMatchObject({ code: 'DBOS_MODE_MISMATCH', data: { sessionId: 'p-std', expected: 'standard', actual: 'persistent' } });
    await (await runtime.executor.execute(chat, 'per', { sessionId: 'p-per', mode: 'persistent' })).result();
    const toStandard = await runtime.executor.execute(chat, 'x', { sessionId: 'p-per' }).catch((error: unknown) => error);
    expect(toStandard).toMatchObject({ code: 'DBOS_MODE_MISMATCH', data: { sessionId: 'p-per', expected: 'persistent', actual: 'standard' } });
  });
});

/**
 * A fresh turn's start stores its user message, step count and a new session's stream with the run record (one
 * transaction, both journals), so its begin writes nothing; on the fused journal BeginRunStep's row then commits with
 * the first model step's record. A run's finish with FinishRunStep's record: the last step's messages, the final chunk,
 * the stream's end, the session's outcome, the run's record and DBOS's step row are one transaction (one `xmin`).
 * On the public journal the same writes commit in one transaction of the store (its batch record) before DBOS's row.
 * A run with a hook that must see its outcome committed when it fires writes them on its own (the session outcome
 * committed before onAgentComplete fires).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { defineAgent } from '../../../src/agent/index.js';
import { activeJournal } from '../../../src/journal/journal.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import type { SessionStatus } from '../../../src/types/session.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';

/** While set, the model waits for it before answering (the run is then between its begin and its first record). */
let modelGate: Promise<void> | undefined;
let modelCalled: (() => void) | undefined;
const llm = new MockLLMAdapter(async (input) => {
  if (input.sessionId === 'begin-then-fails') return { type: 'error', message: 'the provider refused', retryable: false };
  modelCalled?.();
  await modelGate;
  return { type: 'text', text: 'All done here.' };
});
const plain = defineAgent({ name: 'finish_plain', systemPrompt: 'Answer.', tools: [] });
let runtime: TestRuntime;
let pool: pg.Pool;

beforeAll(async () => {
  runtime = await startTestRuntime('executor_finish', llm);
  pool = new pg.Pool({ connectionString: runtime.database.url, max: 2 });
}, 120_000);

afterAll(async () => {
  await pool.end();
  await runtime.shutdown();
});

/** The transaction ids that last wrote the finish's rows: session, run, stream, the assistant message, FinishRunStep's DBOS row. */
async function finishWriters(sessionId: string, runId: string, workflowId: string): Promise<Record<string, string>> {
  const one = async (sql: string, values: unknown[]): Promise<string> => {
    const { rows } = await pool.query<{ xmin: string }>(sql, values);
    return rows[0]?.xmin ?? 'missing';
  };
  return {
    session: await one('SELECT xmin::text FROM __agents_sessions WHERE session_id = $1', [sessionId]),
    run: await one('SELECT xmin::text FROM __agents_runs WHERE session_id = $1 AND run_id = $2', [sessionId, runId]),
    stream: await one('SELECT xmin::text FROM __agents_streams WHERE stream_id = $1', [sessionId]),
    message: await one('SELECT xmin::text FROM __agents_messages WHERE session_id = $1 ORDER BY sequence DESC LIMIT 1', [sessionId]),
    record: await one("SELECT xmin::text FROM dbos.operation_outputs WHERE workflow_uuid = $1 AND function_name = 'FinishRunStep'", [workflowId]),
  };
}

describe('the begin of a run', () => {
  it('the start commits the user message, the run and a new session’s stream together; the begin writes nothing', async () => {
    let open: () => void = () => undefined;
    modelGate = new Promise((resolve) => (open = resolve));
    const called = new Promise<void>((resolve) => (modelCalled = resolve));
    try {
      const handle = await runtime.executor.execute(plain, 'Begin here.', { sessionId: 'begin-one' });
      await called;
      const xmin = async (sql: string, values: unknown[]): Promise<string | undefined> => (await pool.query<{ xmin: string }>(sql, values)).rows[0]?.xmin;
      const message = await xmin('SELECT xmin::text FROM __agents_messages WHERE session_id = $1 ORDER BY sequence LIMIT 1', ['begin-one']);
      expect(message, 'the user message, while the model is called').toBeDefined();
      expect(await xmin('SELECT xmin::text FROM __agents_runs WHERE session_id = $1', ['begin-one'])).toBe(message);
      expect(await xmin('SELECT xmin::text FROM __agents_streams WHERE stream_id = $1', ['begin-one'])).toBe(message);
      // Fused: BeginRunStep wrote nothing, and its row rides with the model step's record; public: DBOS records it, beside
      // the model call made ahead (either may come first), while the model has not answered.
      const begin = "SELECT xmin::text FROM dbos.operation_outputs WHERE workflow_uuid = $1 AND function_name = 'BeginRunStep'";
      if (activeJournal() === 'fused') expect(await xmin(begin, [handle.workflowId]), 'BeginRunStep, while the model is called').toBeUndefined();
      else await vi.waitFor(async () => expect(await xmin(begin, [handle.workflowId])).toBeDefined(), { timeout: 5_000, interval: 10 });
      open();
      expect(await handle.result()).toMatchObject({ status: 'completed' });
      const llmRow = await xmin("SELECT xmin::text FROM dbos.operation_outputs WHERE workflow_uuid = $1 AND function_name = 'CallLLMStep'", [handle.workflowId]);
      if (activeJournal() === 'fused') expect(await xmin(begin, [handle.workflowId])).toBe(llmRow);
      else expect(await xmin(begin, [handle.workflowId])).not.toBe(llmRow);
      expect((await DBOS.listWorkflowSteps(handle.workflowId))?.map((step) => [step.functionID, step.name])).toEqual([
        [0, 'BeginRunStep'],
        [1, 'CallLLMStep'],
        [2, 'FinishRunStep'],
      ]);
      expect((await runtime.stateStore.getMessages('begin-one')).messages.map((entry) => entry.role)).toEqual(['user', 'assistant']);
    } finally {
      open();
      modelGate = undefined;
      modelCalled = undefined;
    }
  });

  it('a first model step that fails records the begin’s row before its error: no function id is missing', async () => {
    const handle = await runtime.executor.execute(plain, 'Begin here.', { sessionId: 'begin-then-fails' });
    expect(await handle.result()).toMatchObject({ status: 'failed' });
    const steps = await DBOS.listWorkflowSteps(handle.workflowId);
    expect(steps?.map((step) => [step.functionID, step.name, step.error === null || step.error === undefined ? 'ok' : 'error'])).toEqual([
      [0, 'BeginRunStep', 'ok'],
      [1, 'CallLLMStep', 'error'],
      [2, 'FinishRunStep', 'ok'],
    ]);
  });

  it('a second turn’s start stores its message and resets the step count with the run; an initial state too', async () => {
    const first = await runtime.executor.execute(plain, 'One.', { sessionId: 'begin-two' });
    await first.result();
    expect((await runtime.stateStore.loadState('begin-two'))?.stepCount).toBe(1);
    let open: () => void = () => undefined;
    modelGate = new Promise((resolve) => (open = resolve));
    const called = new Promise<void>((resolve) => (modelCalled = resolve));
    try {
      const second = await runtime.executor.execute(plain, { message: 'Two.', state: { mood: 'fresh' } }, { sessionId: 'begin-two' });
      await called;
      const state = await runtime.stateStore.loadState('begin-two');
      expect(state).toMatchObject({ stepCount: 0, customState: { mood: 'fresh' } });
      const message = await pool.query<{ xmin: string }>('SELECT xmin::text FROM __agents_messages WHERE session_id = $1 ORDER BY sequence DESC LIMIT 1', ['begin-two']);
      const run = await pool.query<{ xmin: string }>('SELECT xmin::text FROM __agents_runs WHERE session_id = $1 AND run_id = $2', ['begin-two', second.runId]);
      expect(message.rows[0]?.xmin).toBe(run.rows[0]?.xmin);
      open();
      expect(await second.result()).toMatchObject({ status: 'completed', stepCount: 1 });
      expect((await runtime.stateStore.getMessages('begin-two')).messages.map((entry) => entry.content)).toEqual(['One.', 'All done here.', 'Two.', 'All done here.']);
    } finally {
      open();
      modelGate = undefined;
      modelCalled = undefined;
    }
  });

  it('with an onAgentStart hook the begin writes on its own: the hook sees the user message committed', async () => {
    const seen: string[][] = [];
    const hooked = defineAgent({
      name: 'begin_hooked',
      systemPrompt: 'Answer.',
      tools: [],
      hooks: {
        onAgentStart: async ({ sessionId }) => {
          seen.push((await runtime.stateStore.getMessages(sessionId)).messages.map((message) => message.role));
        },
      },
    });
    const handle = await runtime.executor.execute(hooked, 'Hello.', { sessionId: 'begin-hooked' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect(seen).toEqual([['user']]);
  });
});

describe('the finish of a run', () => {
  it('one transaction for the finish’s writes (fused: with FinishRunStep’s record; public: the batch record, before it)', async () => {
    const handle = await runtime.executor.execute(plain, 'Hello.', { sessionId: 'finish-one' });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', output: 'All done here.' });
    const writers = await finishWriters('finish-one', handle.runId, handle.workflowId);
    expect(Object.values(writers)).not.toContain('missing');
    const ours = { session: writers.session, run: writers.run, stream: writers.stream, message: writers.message };
    expect(ours, 'one transaction').toEqual({ session: writers.message, run: writers.message, stream: writers.message, message: writers.message });
    if (activeJournal() === 'fused') expect(writers.record, 'with DBOS’s row').toBe(writers.message);
    else expect(writers.record, 'DBOS’s row on its own, after').not.toBe(writers.message);
    expect((await runtime.stateStore.loadState('finish-one'))?.status).toBe('completed');
    expect(await runtime.streamManager.getInfo('finish-one')).toMatchObject({ status: 'ended', output: 'All done here.' });
    const chunks: string[] = [];
    for await (const chunk of await runtime.streamManager.createReader('finish-one')) chunks.push(chunk.type);
    expect(chunks.filter((type) => type === 'output')).toHaveLength(1);
    expect(chunks.at(-1)).toBe('output');
  });

  it('with an onAgentComplete hook the finish writes on its own: the hook sees the session completed and the stream ended', async () => {
    const seen: Array<{ status: SessionStatus | undefined; stream: string | undefined }> = [];
    const hooked = defineAgent({
      name: 'finish_hooked',
      systemPrompt: 'Answer.',
      tools: [],
      hooks: {
        onAgentComplete: async ({ sessionId }) => {
          seen.push({ status: (await runtime.stateStore.loadState(sessionId))?.status, stream: (await runtime.streamManager.getInfo(sessionId))?.status });
        },
      },
    });
    const handle = await runtime.executor.execute(hooked, 'Hello.', { sessionId: 'finish-hooked' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    expect(seen).toEqual([{ status: 'completed', stream: 'ended' }]);
    const writers = await finishWriters('finish-hooked', handle.runId, handle.workflowId);
    expect(writers.session).not.toBe(writers.record);
  });

  it('a second turn after a folded finish starts, streams and finishes again on the same session', async () => {
    const first = await runtime.executor.execute(plain, 'One.', { sessionId: 'finish-twice' });
    await first.result();
    const second = await runtime.executor.execute(plain, 'Two.', { sessionId: 'finish-twice' });
    const chunks: string[] = [];
    for await (const chunk of second.stream()) chunks.push(chunk.type);
    expect(await second.result()).toMatchObject({ status: 'completed', output: 'All done here.' });
    expect(chunks.at(-1)).toBe('output');
    expect((await runtime.stateStore.getMessages('finish-twice')).messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect((await runtime.stateStore.listRuns('finish-twice')).runs.map((run) => run.status)).toEqual(['completed', 'completed']);
  });
});

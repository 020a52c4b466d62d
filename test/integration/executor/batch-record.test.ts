/**
 * A tool step that is its agent step's only work commits, in ONE transaction, its chunks, its usage row and the agent
 * step's commit (messages, checkpoint, session): on the fused journal with DBOS's row for the step, on the public
 * journal in the batch record's transaction before DBOS records the step (its own transaction). The next CallLLMStep
 * then writes nothing of that step. A state store whose step records lend no connections leaves the public journal's
 * steps writing on their own, as before the batch record.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { activeJournal } from '../../../src/journal/journal.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import type { MockLLMResponse } from '../../../src/llm/mock/mock-llm-response.js';
import type { LLMGenerateInput } from '../../../src/types/llm.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';

/** The session row's `xmin` as the model saw it when asked for step 2 (after step 1's tool step and CallLLMStep 2's commit). */
const sessionXminAtStep2 = new Map<string, string>();
let runtime: TestRuntime;
let pool: pg.Pool;

const llm = new MockLLMAdapter(async (input: LLMGenerateInput, callIndex: number): Promise<MockLLMResponse> => {
  if (input.step === 2 && input.sessionId !== undefined) {
    const { rows } = await pool.query<{ xmin: string }>('SELECT xmin::text FROM __agents_sessions WHERE session_id = $1', [input.sessionId]);
    sessionXminAtStep2.set(input.sessionId, rows[0]?.xmin ?? 'missing');
  }
  return input.step === 1 ? { type: 'tool_calls', toolCalls: [{ id: `b${callIndex}`, name: 'bump', arguments: {} }] } : { type: 'text', text: 'Bumped.' };
});
const bump = defineTool({
  name: 'bump',
  description: 'Adds one.',
  parameters: z.object({}),
  execute: async (_input, context) => {
    context.updateState((draft) => {
      draft.count = (draft.count as number) + 1;
    });
    return { ok: true };
  },
});
const bumper = defineAgent({ name: 'batch_bumper', systemPrompt: 'Bump.', tools: [bump], stateSchema: z.object({ count: z.number().default(0) }), maxSteps: 4 });

beforeAll(async () => {
  runtime = await startTestRuntime('executor_batch_record', llm);
  pool = new pg.Pool({ connectionString: runtime.database.url, max: 2 });
}, 120_000);
afterAll(async () => {
  await pool?.end();
  await runtime?.shutdown();
});

/** The transaction ids that wrote step 1's rows: its last chunk (tool_end), tool usage row, checkpoint, tool message, and DBOS's tool step row. */
async function stepOneWriters(sessionId: string, runId: string, workflowId: string): Promise<Record<string, string>> {
  const one = async (sql: string, values: unknown[]): Promise<string> => (await pool.query<{ xmin: string }>(sql, values)).rows[0]?.xmin ?? 'missing';
  return {
    chunk: await one('SELECT xmin::text FROM __agents_stream_chunks WHERE stream_id = $1 AND step = 1 ORDER BY sequence DESC LIMIT 1', [sessionId]),
    usage: await one("SELECT xmin::text FROM __agents_usage WHERE session_id = $1 AND run_id = $2 AND kind = 'tool'", [sessionId, runId]),
    checkpoint: await one('SELECT xmin::text FROM __agents_checkpoints WHERE session_id = $1 AND checkpoint_id = $2', [sessionId, `${runId}:1`]),
    // user, assistant (the tool call), tool, assistant: the third is the tool's result.
    message: await one('SELECT xmin::text FROM __agents_messages WHERE session_id = $1 ORDER BY sequence OFFSET 2 LIMIT 1', [sessionId]),
    record: await one("SELECT xmin::text FROM dbos.operation_outputs WHERE workflow_uuid = $1 AND function_name = 'ExecuteToolStep:bump'", [workflowId]),
  };
}

describe('a sole tool call’s step record', () => {
  it('commits the tool’s chunks, its usage and the agent step in one transaction; the next CallLLMStep writes nothing of it', async () => {
    const handle = await runtime.executor.execute(bumper, 'Bump once.', { sessionId: 'batch-one' });
    expect(await handle.result()).toMatchObject({ status: 'completed', stepCount: 2 });
    const writers = await stepOneWriters('batch-one', handle.runId, handle.workflowId);
    expect(Object.values(writers)).not.toContain('missing');
    const { record, ...ours } = writers;
    expect(ours, 'one transaction').toEqual({ chunk: writers.checkpoint, usage: writers.checkpoint, checkpoint: writers.checkpoint, message: writers.checkpoint });
    // Fused: with DBOS's row. Public: the batch record's transaction, then DBOS's row in its own.
    if (activeJournal() === 'fused') expect(record, 'with DBOS’s row').toBe(writers.checkpoint);
    else expect(record, 'DBOS’s row after, in its own transaction').not.toBe(writers.checkpoint);
    // When the model was asked for step 2, the session row was still as the tool step's transaction left it.
    expect(sessionXminAtStep2.get('batch-one')).toBe(writers.checkpoint);
    expect((await runtime.stateStore.loadState('batch-one'))?.customState).toEqual({ count: 1 });
  });

  it('public journal, a store whose step records lend no connections: the steps write on their own, as before', async () => {
    const stepRecords = runtime.stateStore.stepRecords as { withConnection?: unknown };
    const lend = stepRecords.withConnection;
    stepRecords.withConnection = undefined;
    const stage = runtime.stateStore.stageChanges.bind(runtime.stateStore);
    let staged = 0;
    runtime.stateStore.stageChanges = (...args) => ((staged += 1), stage(...args));
    try {
      const handle = await runtime.executor.execute(bumper, 'Bump once.', { sessionId: 'batch-apart' });
      expect(await handle.result()).toMatchObject({ status: 'completed', stepCount: 2 });
      const writers = await stepOneWriters('batch-apart', handle.runId, handle.workflowId);
      if (activeJournal() === 'fused') {
        // The fused journal needs no lent connection: DBOS's record transaction carries the writes.
        expect(staged).toBe(0);
        expect(writers.record).toBe(writers.checkpoint);
      } else {
        // Staged by the tool step, committed by the next CallLLMStep; the chunk flushed on its own before both.
        expect(staged).toBe(1);
        expect(new Set([writers.chunk, writers.checkpoint, writers.record]).size).toBe(3);
        expect(sessionXminAtStep2.get('batch-apart')).toBe(writers.checkpoint);
      }
      expect((await runtime.stateStore.loadState('batch-apart'))?.customState).toEqual({ count: 1 });
    } finally {
      stepRecords.withConnection = lend;
      runtime.stateStore.stageChanges = stage;
    }
  });
});

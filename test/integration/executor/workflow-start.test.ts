/**
 * DBOS's start of a run's workflow, on the journal this suite runs with (CI runs both): on the fused journal DBOS's
 * record of the start (its status and input rows, written by DBOS's own code) commits in the transaction of the run's
 * start writes (its run record and the turn's user message), turn 1 and turn 2; on the public journal in a transaction
 * of its own after them; a retry's start (`startRun`) likewise. Concurrent first turns of one new session start one
 * workflow: the start that lost wrote nothing, DBOS's rows included.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { describe, expect, it } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import { activeJournal } from '../../../src/journal/journal.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { useTestRuntime } from '../../support/runtime.js';

const agent = defineAgent({ name: 'start_joined', systemPrompt: 'Answer.' });
/** A session named here fails its first call; while `modelGate` is set, the model waits for it before answering. */
const failsOnce = new Set(['start-retry']);
let modelGate: Promise<void> | undefined;
let modelCalled: (() => void) | undefined;
const llm = new MockLLMAdapter(async (input) => {
  const fails = input.sessionId !== undefined && failsOnce.delete(input.sessionId);
  if (fails) return { type: 'error', message: 'the provider refused', retryable: false };
  modelCalled?.();
  await modelGate;
  return { type: 'text', text: 'done' };
});

const env = useTestRuntime('workflow_start', llm);

/** The transaction ids that wrote the workflow's input row (DBOS's start) and the turn's user message (the run's start). */
async function writers(workflowId: string, sessionId: string, content: string): Promise<{ workflowStart: string; runStart: string }> {
  const inputOf = 'SELECT xmin::text AS writer FROM dbos.workflow_input WHERE workflow_uuid = $1';
  const input = await env.client.query<{ writer: string }>(inputOf, [workflowId]);
  const message = await env.client.query<{ writer: string }>(
    'SELECT xmin::text AS writer FROM public.__agents_messages WHERE session_id = $1 AND position($2 in message) > 0',
    [sessionId, content],
  );
  return { workflowStart: input.rows[0]!.writer, runStart: message.rows[0]!.writer };
}

describe("a run's workflow start", () => {
  it('commits with the run’s start writes on the fused journal, turn 1 and turn 2; apart on the public journal', async () => {
    const sessionId = 'start-1';
    const fused = activeJournal() === 'fused';
    for (const turn of [1, 2]) {
      const handle = await env.runtime.executor.execute(agent, `Turn ${turn}.`, { sessionId });
      expect(await handle.result()).toMatchObject({ status: 'completed', output: 'done' });
      expect((await DBOS.getWorkflowStatus(handle.workflowId))?.status).toBe('SUCCESS');
      const written = await writers(handle.workflowId, sessionId, `Turn ${turn}.`);
      if (fused) expect(written.workflowStart, `turn ${turn}`).toBe(written.runStart);
      else expect(written.workflowStart, `turn ${turn}`).not.toBe(written.runStart);
    }
    const messages = (await env.runtime.stateStore.getMessages(sessionId)).messages;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('concurrent first turns of a new session start one workflow; the refused start leaves no DBOS rows', async () => {
    const sessionId = 'start-race';
    const starts = ['First.', 'Second.'].map((message) => env.runtime.executor.execute(agent, message, { sessionId }));
    const settled = await Promise.allSettled(starts);
    const started = settled.filter((outcome) => outcome.status === 'fulfilled');
    expect(started).toHaveLength(1);
    const refused = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(refused?.reason).toMatchObject({ code: 'AGENT_ALREADY_RUNNING' });
    const handle = (started[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof env.runtime.executor.execute>>>).value;
    expect(await handle.result()).toMatchObject({ status: 'completed', output: 'done' });
    const workflowsOf = 'SELECT workflow_uuid FROM dbos.workflow_status WHERE workflow_uuid LIKE $1';
    const { rows } = await env.client.query<{ workflow_uuid: string }>(workflowsOf, [`start_joined__${sessionId}__%`]);
    expect(rows.map((row) => row.workflow_uuid)).toEqual([handle.workflowId]);
    expect((await env.runtime.stateStore.listRuns(sessionId)).runs).toHaveLength(1);
  });

  it('a retry’s run record commits with its workflow start on the fused journal; apart on the public journal', async () => {
    const sessionId = 'start-retry';
    const failed = await env.runtime.executor.execute(agent, 'Fail once.', { sessionId });
    expect(await failed.result()).toMatchObject({ status: 'failed' });
    let open: () => void = () => undefined;
    modelGate = new Promise((resolve) => (open = resolve));
    const called = new Promise<void>((resolve) => (modelCalled = resolve));
    try {
      const handle = await env.runtime.executor.retry(agent, sessionId);
      await called;
      // The run's row, not yet written again by its finish (the model waits), and DBOS's input row.
      const runOf = 'SELECT xmin::text AS writer FROM public.__agents_runs WHERE session_id = $1 AND run_id = $2';
      const run = (await env.client.query<{ writer: string }>(runOf, [sessionId, handle.runId])).rows[0]?.writer;
      const inputOf = 'SELECT xmin::text AS writer FROM dbos.workflow_input WHERE workflow_uuid = $1';
      const input = (await env.client.query<{ writer: string }>(inputOf, [handle.workflowId])).rows[0]?.writer;
      expect(run).toBeDefined();
      if (activeJournal() === 'fused') expect(input).toBe(run);
      else expect(input).not.toBe(run);
      open();
      expect(await handle.result()).toMatchObject({ status: 'completed', output: 'done' });
    } finally {
      open();
      modelGate = undefined;
      modelCalled = undefined;
    }
  });
});

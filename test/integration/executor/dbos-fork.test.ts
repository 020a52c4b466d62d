import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { DBOSForkRefusedError } from '../../../src/errors/index.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { createGate, type Gate } from '../run-control/run-control-kit.js';
import { scriptedLLM } from './executor-test-kit.js';

/** The gate of the current test; the tool passes it before returning. */
let gate: Gate = createGate();
let toolRuns = 0;
const lookup = defineTool({
  name: 'lookup',
  description: 'Look something up',
  parameters: z.object({ q: z.string() }),
  execute: async ({ q }) => {
    toolRuns += 1;
    await gate.pass();
    return { found: q };
  },
});
const agent = defineAgent({ name: 'fork_agent', systemPrompt: 'Look things up.', tools: [lookup], maxSteps: 6 });

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('dbos_fork', llm.adapter);
});
afterAll(async () => {
  gate.open();
  await runtime?.shutdown();
});

/** Two tool steps, then an answer. */
function twoLookupsThenAnswer(): void {
  llm.use((_input, callIndex) =>
    callIndex < 2 ? { type: 'tool_calls', toolCalls: [{ id: `call-${callIndex}`, name: 'lookup', arguments: { q: `q${callIndex}` } }] } : { type: 'text', text: 'done' },
  );
}

/** Everything a fork could write: the session row, its messages, runs, checkpoints and stream. */
async function snapshot(sessionId: string): Promise<unknown> {
  const state = await runtime.stateStore.loadState(sessionId);
  return {
    state: { status: state?.status, stepCount: state?.stepCount, version: state?.version, output: state?.output, error: state?.error },
    messages: (await runtime.stateStore.getMessages(sessionId)).messages.map((message) => message.id),
    runs: (await runtime.stateStore.listRuns(sessionId)).runs.map((run) => [run.runId, run.status, run.stepCount, run.completionReason]),
    checkpoint: (await runtime.stateStore.getLatestCheckpoint(sessionId))?.id,
    stream: await runtime.streamManager.getInfo(sessionId),
  };
}

const refused = (error: unknown): boolean => DBOSForkRefusedError.isInstance(error);

describe('a DBOS fork of an agent run', () => {
  it('of a finished run, at every start step: the fork is refused and the original session, run and stream stay as they were', async () => {
    gate = createGate();
    gate.open();
    twoLookupsThenAnswer();
    const handle = await runtime.executor.execute(agent, 'find two things', { sessionId: 'fork-finished' });
    expect(await handle.result()).toMatchObject({ status: 'completed', output: 'done' });
    const before = await snapshot('fork-finished');
    const [calls, runs] = [llm.adapter.callCount, toolRuns];
    const steps = (await DBOS.listWorkflowSteps(handle.workflowId)) ?? [];
    const lastStep = Math.max(0, ...steps.map((step) => step.functionID));
    for (let startStep = 0; startStep <= lastStep + 1; startStep += 1) {
      const fork = await DBOS.forkWorkflow(handle.workflowId, startStep);
      expect(fork.workflowID).not.toBe(handle.workflowId);
      await expect(fork.getResult()).rejects.toSatisfy(refused);
    }
    expect(await snapshot('fork-finished')).toEqual(before);
    expect([llm.adapter.callCount, toolRuns]).toEqual([calls, runs]);
    // The session goes on as if nothing happened.
    llm.use(() => ({ type: 'text', text: 'next turn' }));
    expect(await (await handle.send('and then?')).result()).toMatchObject({ status: 'completed', output: 'next turn' });
  });

  it('of a running run: the fork is refused and the original run completes unharmed, each tool once', async () => {
    gate = createGate();
    twoLookupsThenAnswer();
    const runsBefore = toolRuns;
    const handle = await runtime.executor.execute(agent, 'find two things', { sessionId: 'fork-running' });
    await gate.entered;
    const fork = await DBOS.forkWorkflow(handle.workflowId, 0);
    await expect(fork.getResult()).rejects.toSatisfy(refused);
    gate.open();
    expect(await handle.result()).toMatchObject({ status: 'completed', output: 'done', runId: handle.runId });
    expect(toolRuns - runsBefore).toBe(2);
    expect((await runtime.stateStore.loadState('fork-running'))?.status).toBe('completed');
    expect((await runtime.stateStore.getMessages('fork-running')).messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
  });
});

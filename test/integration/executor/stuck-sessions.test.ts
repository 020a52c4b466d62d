import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { DBOSWorkflowNotFoundError, SessionNotContinuableError } from '../../../src/errors/index.js';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import { standardWorkflowId } from '../../../src/orchestration/ids.js';
import { bindRuntimeDependencies, peekRuntimeDependencies, setBindingWaitMsForTesting } from '../../../src/steps/runtime-registry.js';
import type { StreamChunk } from '../../../src/types/stream.js';
import { journalStamp } from '../../../src/journal/format.js';
import { AgentWorkflows, type AgentWorkflowInput } from '../../../src/workflows/agent.workflow.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { createGate, type Gate } from '../run-control/run-control-kit.js';
import { scriptedLLM } from './executor-test-kit.js';

let gate: Gate = createGate();
const slow = defineTool({
  name: 'slow_step',
  description: 'Slow',
  parameters: z.object({}),
  execute: async () => {
    await gate.pass();
    return 'ok';
  },
});
const agent = defineAgent({ name: 'stuck_agent', systemPrompt: 'x', tools: [slow], maxSteps: 4 });
const llm = scriptedLLM();
function answerDirectly(): void {
  llm.use(() => ({ type: 'text', text: 'answered' }));
}

let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('stuck_sessions', llm.adapter);
});
afterAll(async () => {
  setBindingWaitMsForTesting(undefined);
  await runtime?.shutdown();
});

/** What startRun records before it starts the workflow (the window a crash or an abort can land in). */
async function recordRunWithoutWorkflow(sessionId: string, agentType: string, options: { startedAt?: number; withInput?: boolean } = {}): Promise<AgentWorkflowInput> {
  await runtime.stateStore.createSession(sessionId, { agentType, status: 'active', mode: 'standard', streamId: sessionId });
  const runId = `run-${sessionId}`;
  const workflowId = standardWorkflowId(agentType, sessionId, runId);
  const input: AgentWorkflowInput = {
    sessionId,
    runId,
    agentType,
    streamId: sessionId,
    workflowId,
    startSequence: 0,
    rootSessionId: sessionId,
    warmWindowMs: 60_000,
    userMessage: { id: `${runId}:0:0`, role: 'user', content: 'hello' },
    journal: journalStamp(),
  };
  await runtime.stateStore.createRun(sessionId, {
    runId,
    status: 'running',
    stepCount: 0,
    startSequence: 0,
    workflowId,
    startedAt: options.startedAt ?? Date.now(),
    ...(options.withInput === false ? {} : { metadata: { workflowInput: input } }),
  });
  return input;
}

async function startWorkflow(input: AgentWorkflowInput): Promise<unknown> {
  // eslint-disable-next-line @typescript-eslint/unbound-method
  return (await DBOS.startWorkflow(AgentWorkflows.runAgent, { workflowID: input.workflowId })(input)).getResult();
}

async function chunksOf(sessionId: string): Promise<StreamChunk[]> {
  const reader = await runtime.streamManager.createReader(sessionId, 0);
  const chunks: StreamChunk[] = [];
  for await (const chunk of reader) chunks.push(chunk);
  return chunks;
}

describe('no stuck sessions', () => {
  it('abort() between the run record and BeginRunStep: the run stays aborted and the workflow ends without an LLM call', async () => {
    answerDirectly();
    const input = await recordRunWithoutWorkflow('abort-race', agent.name);
    const handle = await runtime.executor.getHandle(agent, 'abort-race');
    await handle!.abort('changed my mind'); // the workflow does not exist yet: no raw error
    const result = await startWorkflow(input);
    expect(result).toMatchObject({ status: 'aborted', completionReason: 'aborted' });
    expect(llm.adapter.calls).toHaveLength(0);
    expect((await runtime.stateStore.getRun('abort-race', input.runId))?.status).toBe('aborted');
    expect(await runtime.stateStore.loadState('abort-race')).toMatchObject({ status: 'failed', failureReason: 'aborted' });
    expect((await handle!.result()).status).toBe('aborted');
  });

  it('abort() while BeginRunStep appends the input: the run stays aborted (the step does not record it running again)', async () => {
    answerDirectly();
    const appending = createGate();
    // The real store, held at the first message append of this one session (the window after BeginRunStep's abort check).
    // Without its step records the start writes apart, so it leaves the turn to the begin (a start in one transaction
    // stores it, and its begin writes nothing: see run-boundary-records.test.ts).
    const held = new Proxy(runtime.stateStore, {
      get(target, property, receiver) {
        if (property === 'stepRecords') return undefined;
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        if (property !== 'appendMessages') return value.bind(target);
        return async (sessionId: string, ...rest: unknown[]) => {
          if (sessionId === 'abort-in-begin') await appending.pass();
          return (value as (...args: unknown[]) => unknown).call(target, sessionId, ...rest);
        };
      },
    });
    const bound = peekRuntimeDependencies()!;
    const executor = new DBOSAgentExecutor({ stateStore: held, streamManager: runtime.streamManager, llmAdapter: llm.adapter });
    let begun: () => void = () => undefined;
    const begunPromise = new Promise<void>((resolve) => (begun = resolve));
    try {
      const handle = await executor.execute(agent, 'go', { sessionId: 'abort-in-begin', hooks: { onAgentStart: () => begun() } });
      await appending.entered;
      await handle.abort('changed my mind');
      appending.open();
      await begunPromise;
      expect(await handle.result()).toMatchObject({ status: 'aborted' });
      expect((await runtime.stateStore.getRun('abort-in-begin', handle.runId))?.status).toBe('aborted');
      expect(llm.adapter.calls.filter((call) => call.sessionId === 'abort-in-begin')).toHaveLength(0);
    } finally {
      appending.open();
      bindRuntimeDependencies(bound); // steps bind to the last executor constructed: give them the runtime's again
    }
  });

  it('a run whose workflow was cancelled outside the executor reads aborted (as abort() records it); retry() then runs the session', async () => {
    gate = createGate();
    let calls = 0;
    llm.use(() => (calls++ === 0 ? { type: 'tool_calls', toolCalls: [{ id: 'c1', name: 'slow_step', arguments: {} }] } : { type: 'text', text: 'answered' }));
    const handle = await runtime.executor.execute(agent, 'go', { sessionId: 'cancelled-out' });
    await gate.entered;
    await DBOS.cancelWorkflow(handle.workflowId);
    gate.open();
    // Recorded by the run when its tool returns, or by the stuck-run repair of this execute(), whichever comes first.
    await expect(runtime.executor.execute(agent, 'again', { sessionId: 'cancelled-out' })).rejects.toSatisfy(
      (error: unknown) => SessionNotContinuableError.isInstance(error) && error.status === 'aborted',
    );
    expect((await runtime.stateStore.getRun('cancelled-out', handle.runId))?.status).toBe('aborted');
    expect(await runtime.stateStore.loadState('cancelled-out')).toMatchObject({ status: 'failed', failureReason: 'aborted' });
    const retried = await runtime.executor.retry(agent, 'cancelled-out');
    expect(await retried.result()).toMatchObject({ status: 'completed', output: 'answered' });
  });

  it("a running run whose workflow is missing: result() repairs it and throws DBOSWorkflowNotFoundError, whose advice (retry) works", async () => {
    answerDirectly();
    const input = await recordRunWithoutWorkflow('missing-wf', agent.name, { startedAt: Date.now() - 60_000, withInput: false });
    const handle = await runtime.executor.getHandle(agent, 'missing-wf');
    await expect(handle!.result()).rejects.toSatisfy((error: unknown) => DBOSWorkflowNotFoundError.isInstance(error) && error.message.includes('retry()'));
    expect((await runtime.stateStore.getRun('missing-wf', input.runId))?.status).toBe('failed');
    const retried = await runtime.executor.retry(agent, 'missing-wf');
    expect(await retried.result()).toMatchObject({ status: 'completed', output: 'answered' });
  });

  it('result() of a finished run whose DBOS record is gone answers from the stored run record', async () => {
    answerDirectly();
    const handle = await runtime.executor.execute(agent, 'hi', { sessionId: 'gone-record' });
    expect((await handle.result()).status).toBe('completed');
    const client = new pg.Client({ connectionString: runtime.database.url });
    await client.connect();
    try {
      await client.query('DELETE FROM dbos.workflow_status WHERE workflow_uuid = $1', [handle.workflowId]);
    } finally {
      await client.end();
    }
    expect(await DBOS.getWorkflowStatus(handle.workflowId)).toBeNull();
    const again = await runtime.executor.getHandle(agent, 'gone-record');
    expect(await again!.result()).toMatchObject({ status: 'completed', output: 'answered', runId: handle.runId });
  });

  it('a workflow that gives up waiting for its agent registration ends its run failed', async () => {
    setBindingWaitMsForTesting(300);
    const input = await recordRunWithoutWorkflow('unregistered', 'never_registered_agent');
    const result = await startWorkflow(input);
    expect(result).toMatchObject({ status: 'failed', completionReason: 'failed' });
    expect((await runtime.stateStore.getRun('unregistered', input.runId))?.status).toBe('failed');
    expect((await runtime.stateStore.loadState('unregistered'))?.status).toBe('failed');
    const chunks = await chunksOf('unregistered');
    expect(chunks.at(-1)).toMatchObject({ type: 'error', recoverable: false });
    expect(String((chunks.at(-1) as { error: string }).error)).toContain('register');
    setBindingWaitMsForTesting(undefined);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';
import { childScript, planner, toolResultsOf } from './sub-agent-kit.js';
import { frontDesk, treeScript } from './hitl-kit.js';

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('sub_agent_control', llm.adapter, { hitlWarmWindowMs: 30_000 });
});
afterAll(async () => {
  await runtime?.shutdown();
});

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The planner delegates to one summarizer whose first LLM call is slow (3 s) unless resumed. */
function slowChildScript(slowFirstCall: { value: boolean }): Parameters<typeof llm.use>[0] {
  return (input) => {
    if (input.agentType === 'summarizer' && input.step === 1 && slowFirstCall.value) {
      slowFirstCall.value = false;
      return { type: 'text', text: 'never finished', delayMs: 3_000 };
    }
    if (input.agentType !== 'planner') return childScript(input);
    if (input.messages.every((message) => message.role !== 'tool')) {
      return { type: 'tool_calls', toolCalls: [{ id: 'ctl-1', name: 'subagent__summarizer', arguments: { text: 'later', delayMs: 0 } }] };
    }
    return { type: 'text', text: `got ${JSON.stringify(toolResultsOf(input).map((result) => result.content))}` };
  };
}

describe('run control across the sub-agent tree', () => {
  it('interrupt reaches a child in an LLM call within 250 ms; resume() continues the tree', async () => {
    const slow = { value: true };
    llm.use(slowChildScript(slow));
    const handle = await runtime.executor.execute(planner, 'go', { sessionId: 'ctl-int' });
    await until(async () => llm.adapter.calls.some((call) => call.agentType === 'summarizer'), 'the child LLM call');
    const started = Date.now();
    await handle.interrupt('stop');
    // The child's LLM call stops at once (its run ends interrupted); the ancestors then record theirs.
    await until(async () => (await runtime.stateStore.getCurrentRun('ctl-int-sub-ctl-1'))?.status === 'interrupted', 'the child to end interrupted');
    const childStopped = Date.now() - started;
    const result = await handle.result();
    const elapsed = Date.now() - started;
    expect(result.status).toBe('interrupted');
    expect(childStopped).toBeLessThan(250);
    expect(elapsed).toBeLessThan(1_000);
    expect(await runtime.stateStore.loadState('ctl-int-sub-ctl-1')).toMatchObject({ status: 'interrupted' });
    expect((await runtime.stateStore.getSubSessionRefs('ctl-int'))[0]?.status).toBe('interrupted');

    const resumed = await runtime.executor.resume(planner, 'ctl-int');
    const final = await resumed.result();
    expect(final).toMatchObject({ status: 'completed', output: 'got [{"summary":"LATER"}]' });
    const child = await runtime.stateStore.loadState('ctl-int-sub-ctl-1');
    expect(child).toMatchObject({ status: 'completed', output: { summary: 'LATER' } });
    expect((await runtime.stateStore.listRuns('ctl-int-sub-ctl-1')).runs.map((run) => run.status)).toEqual(['interrupted', 'completed']);
  });

  it('interrupt reaches a child that waits for a human within 250 ms', async () => {
    llm.use(treeScript);
    const handle = await runtime.executor.execute(frontDesk, 'pay', { sessionId: 'ctl-hitl' });
    expect((await handle.result()).status).toBe('suspended_client_tool');
    const started = Date.now();
    await handle.interrupt('stop');
    await until(async () => (await runtime.stateStore.getCurrentRun('ctl-hitl-sub-desk-1'))?.status === 'interrupted', 'the child to end interrupted');
    expect(Date.now() - started).toBeLessThan(250);
    await until(async () => (await runtime.stateStore.getCurrentRun('ctl-hitl'))?.status === 'interrupted', 'the root to end interrupted');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((await runtime.stateStore.loadState('ctl-hitl-sub-desk-1'))?.status).toBe('interrupted');
  });

  it('abort cancels the child workflows and records them terminated', async () => {
    llm.use(slowChildScript({ value: true }));
    const handle = await runtime.executor.execute(planner, 'go', { sessionId: 'ctl-abort' });
    await until(async () => llm.adapter.calls.some((call) => call.sessionId === 'ctl-abort-sub-ctl-1'), 'the child LLM call');
    const started = Date.now();
    await handle.abort('cancel');
    expect((await handle.result()).status).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(250);
    const child = await runtime.stateStore.loadState('ctl-abort-sub-ctl-1');
    expect(child).toMatchObject({ status: 'failed', failureReason: 'aborted' });
    expect((await runtime.stateStore.getSubSessionRefs('ctl-abort'))[0]?.status).toBe('terminated');
    expect((await runtime.stateStore.getCurrentRun('ctl-abort-sub-ctl-1'))?.status).toBe('aborted');
    await expect(handle.canResume()).resolves.toBe(false);
  });
});

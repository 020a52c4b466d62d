/**
 * Companions under run control and human-in-the-loop, on real DBOS + Postgres: a companion's human call is submitted
 * against the root session and routed to the companion; abort of the parent terminates its running companions;
 * interrupt of the parent interrupts them.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';
import { eventually, markerOf } from '../persistent/persistent-kit.js';
import { boss, call, clerkReply, desk, parentScript, toolResultOf } from './companion-kit.js';

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('companion_control', llm.adapter, { persistentWarmWindowMs: 400 });
});
afterAll(async () => {
  await runtime?.shutdown();
});

/**
 * The companion's turn runs (an interrupt or abort sent before its turn opened would be cleared by it, as for any
 * persistent session) and the parent waits for it (its first `CompanionStep.outcome` is recorded).
 */
async function waitingFor(parentWorkflowId: string, childSessionId: string): Promise<void> {
  await eventually("the companion's turn runs", async () => (await runtime.stateStore.getCurrentRun(childSessionId))?.status === 'running');
  await eventually('the parent waits', async () => ((await DBOS.listWorkflowSteps(parentWorkflowId)) ?? []).some((step) => step.name === 'CompanionStep.outcome'));
}

describe('companions under run control and human-in-the-loop', () => {
  it("a companion's human call is submitted against the root and continues the companion; the blocked parent gets its result", async () => {
    llm.use((input) => {
      if (input.agentType === 'clerk') return clerkReply(input);
      return input.messages.at(-1)?.role === 'tool' ? { type: 'text', text: 'desk done' } : call('k1', 'spawnAgent', { agentType: 'clerk', name: 'k', message: 'ship it?' });
    });
    const handle = await runtime.executor.execute(desk, 'go', { sessionId: 'cc-hitl' });
    await eventually('the companion call is owned through the root', async () => (await runtime.stateStore.loadState('cc-hitl'))?.clientToolCallOwnership?.['confirm-cc-hitl-agent-k'] === 'cc-hitl-agent-k');
    expect((await runtime.stateStore.getCurrentRun('cc-hitl'))?.status).toBe('running');
    const response = await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'cc-hitl', toolCallId: 'confirm-cc-hitl-agent-k', result: { yes: true } });
    expect(response.status).toBe('accepted');
    expect(await handle.result()).toMatchObject({ status: 'completed', output: 'desk done' });
    expect(await toolResultOf(runtime.stateStore, 'cc-hitl', 'k1')).toEqual({ content: { name: 'k', status: 'completed', output: { confirmed: { yes: true } } }, isError: false });
    // A second submission of the same call is already completed (recorded on the root).
    expect((await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'cc-hitl', toolCallId: 'confirm-cc-hitl-agent-k', result: {} })).status).toBe('already_completed');
  });

  it('abort of the parent terminates its running companions', async () => {
    llm.use(parentScript([call('a1', 'spawnAgent', { agentType: 'watcher', name: 'w', message: 'stall' }), call('a2', 'waitForResult', { name: 'w' })]));
    const handle = await runtime.executor.execute(boss, 'go', { sessionId: 'cc-abort' });
    await waitingFor(handle.workflowId, 'cc-abort-agent-w');
    await handle.abort('stop everything');
    expect(await handle.result()).toMatchObject({ status: 'aborted' });
    const [ref] = await runtime.stateStore.getSubSessionRefs('cc-abort');
    expect(ref).toMatchObject({ name: 'w', status: 'terminated' });
    expect(await runtime.stateStore.loadState('cc-abort-agent-w')).toMatchObject({ status: 'failed', failureReason: 'aborted' });
    expect((await runtime.stateStore.getCurrentRun('cc-abort-agent-w'))?.status).toBe('aborted');
    await eventually('the companion workflow is cancelled', async () => (await DBOS.getWorkflowStatus('cc-abort-agent-w-spawn-a1'))?.status === 'CANCELLED');
  });

  it("abort of the parent while a companion's turn is opening leaves nothing running: the turn records itself aborted", async () => {
    llm.use(parentScript([call('o1', 'spawnAgent', { agentType: 'watcher', name: 'w', message: 'stall' }), call('o2', 'waitForResult', { name: 'w' })]));
    // Hold the companion's turn inside PersistentStep.openTurn, just before its run record is written.
    const { stateStore } = runtime;
    const createRun = stateStore.createRun.bind(stateStore);
    let reached = false;
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    stateStore.createRun = async (sessionId, run) => {
      if (sessionId === 'cc-open-agent-w') {
        reached = true;
        await gate;
      }
      return createRun(sessionId, run);
    };
    try {
      const handle = await runtime.executor.execute(boss, 'go', { sessionId: 'cc-open' });
      await eventually("the companion's turn is opening", async () => reached);
      await eventually('the parent waits', async () => ((await DBOS.listWorkflowSteps(handle.workflowId)) ?? []).some((step) => step.name === 'CompanionStep.outcome'));
      await handle.abort('stop everything');
      expect(await handle.result()).toMatchObject({ status: 'aborted' });
      release();
      await eventually('the companion workflow ends cancelled', async () => (await DBOS.getWorkflowStatus('cc-open-agent-w-spawn-o1'))?.status === 'CANCELLED');
      await eventually('the opened turn is recorded aborted', async () => (await stateStore.getCurrentRun('cc-open-agent-w'))?.status === 'aborted');
      expect(await stateStore.loadState('cc-open-agent-w')).toMatchObject({ status: 'failed', failureReason: 'aborted' });
      expect((await stateStore.getSubSessionRefs('cc-open'))[0]).toMatchObject({ name: 'w', status: 'terminated' });
      expect(await markerOf(stateStore, 'cc-open-agent-w')).toMatchObject({ phase: 'closed', endReason: 'aborted' });
    } finally {
      release();
      stateStore.createRun = createRun;
    }
  });

  it('interrupt of the parent interrupts a running companion; the blocked parent hears of it and ends interrupted', async () => {
    llm.use(parentScript([call('i1', 'spawnAgent', { agentType: 'watcher', name: 'w', message: 'stall' }), call('i2', 'waitForResult', { name: 'w' })]));
    const handle = await runtime.executor.execute(boss, 'go', { sessionId: 'cc-int' });
    await waitingFor(handle.workflowId, 'cc-int-agent-w');
    await handle.interrupt('pause');
    expect(await handle.result()).toMatchObject({ status: 'interrupted' });
    expect((await runtime.stateStore.getCurrentRun('cc-int-agent-w'))?.status).toBe('interrupted');
    expect(await toolResultOf(runtime.stateStore, 'cc-int', 'i2')).toEqual({ content: { name: 'w', status: 'interrupted' }, isError: false });
    expect((await runtime.stateStore.getSubSessionRefs('cc-int'))[0]).toMatchObject({ status: 'interrupted', completionDelivered: true });
  });
});

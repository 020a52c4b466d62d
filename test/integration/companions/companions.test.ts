/**
 * The six companion tools on real DBOS + Postgres: blocking and non-blocking spawn, auto-naming, messages to a
 * running child (queued) and to a completed one (continuation on its preserved session), listChildren,
 * getChildStatus, terminateChild, waitForResult with and without a timeout, a failing blocking child, and the
 * non-blocking outcome delivered into the parent's next turn exactly once.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';
import { eventually, markerOf, userTexts } from '../persistent/persistent-kit.js';
import { companionTurnRunId } from '../../../src/orchestration/companions.js';
import { messageCompanion } from '../../../src/steps/companion-children.js';
import { startPersistentWorkflow } from '../../../src/workflows/persistent.workflow.js';
import { sendInboxTurn } from '../../../src/channels/persistent-inbox.js';
import { boss, call, calls, parentScript, toolResultOf } from './companion-kit.js';

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('companions', llm.adapter, { persistentWarmWindowMs: 400 });
});
afterAll(async () => {
  await runtime?.shutdown();
});

async function runParent(sessionId: string, message: string): Promise<unknown> {
  const handle = await runtime.executor.execute(boss, message, { sessionId });
  return handle.result();
}

async function refOf(parent: string, name: string) {
  return (await runtime.stateStore.getSubSessionRefs(parent)).find((ref) => ref.name === name);
}

describe('companion tools', () => {
  it('blocking spawn waits for the child turn and returns its output; a completed child continues on its preserved session', async () => {
    llm.use(parentScript([call('c1', 'spawnAgent', { agentType: 'researcher', name: 'r', message: 'q1' }), { type: 'text', text: 'ok' }]));
    expect(await runParent('cb-1', 'go')).toMatchObject({ status: 'completed', output: 'ok' });
    expect(await toolResultOf(runtime.stateStore, 'cb-1', 'c1')).toEqual({ content: { name: 'r', status: 'completed', output: { answer: 're: q1' } }, isError: false });
    const child = await runtime.stateStore.loadState('cb-1-agent-r');
    expect(child).toMatchObject({ mode: 'persistent', agentType: 'researcher', parentSessionId: 'cb-1', rootSessionId: 'cb-1', status: 'completed' });
    expect(await refOf('cb-1', 'r')).toMatchObject({ mode: 'persistent', status: 'completed', completionDelivered: true, output: { answer: 're: q1' }, parentToolCallId: 'c1' });

    // The child parks after its warm window; the next message continues it with workflow id `${child}-continue-${callId}`.
    await eventually('the child parked', async () => (await markerOf(runtime.stateStore, 'cb-1-agent-r'))?.phase === 'closed');
    llm.use(parentScript([call('c2', 'sendMessage', { name: 'r', message: 'q2' }), { type: 'text', text: 'ok2' }]));
    expect(await runParent('cb-1', 'again')).toMatchObject({ status: 'completed', output: 'ok2' });
    expect(await toolResultOf(runtime.stateStore, 'cb-1', 'c2')).toMatchObject({ content: { name: 'r', status: 'completed', output: { answer: 're: q2' } } });
    expect(await markerOf(runtime.stateStore, 'cb-1-agent-r')).toMatchObject({ workflowId: 'cb-1-agent-r-continue-c2' });
    const { runs } = await runtime.stateStore.listRuns('cb-1-agent-r');
    expect(runs.map((run) => [run.status, run.stepCount])).toEqual([
      ['completed', 1],
      ['completed', 1],
    ]);
    // Memory kept; the consult appended once, after the first turn's `__finish__` and its result.
    const { messages } = await runtime.stateStore.getMessages('cb-1-agent-r');
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant', 'tool']);
    expect(userTexts(llm.adapter.calls.find((input) => input.agentType === 'researcher')!)).toEqual(['q1', 'q2']);

    // spawnAgent re-using the completed child's name continues it the same way.
    await eventually('the child parked again', async () => (await markerOf(runtime.stateStore, 'cb-1-agent-r'))?.phase === 'closed');
    llm.use(parentScript([call('c3', 'spawnAgent', { agentType: 'researcher', name: 'r', message: 'q3' })]));
    await runParent('cb-1', 'third');
    expect(await toolResultOf(runtime.stateStore, 'cb-1', 'c3')).toMatchObject({ content: { output: { answer: 're: q3' } } });
    expect((await runtime.stateStore.listRuns('cb-1-agent-r')).runs).toHaveLength(3);
    expect(await markerOf(runtime.stateStore, 'cb-1-agent-r')).toMatchObject({ workflowId: 'cb-1-agent-r-continue-c3' });
  });

  it('a blocking child that fails is reported failed, never completed', async () => {
    llm.use(parentScript([call('f1', 'spawnAgent', { agentType: 'researcher', name: 'bad', message: 'please fail' })]));
    await runParent('cb-fail', 'go');
    const result = await toolResultOf(runtime.stateStore, 'cb-fail', 'f1');
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('Companion bad failed');
    expect(await refOf('cb-fail', 'bad')).toMatchObject({ status: 'failed' });

    // sendMessage to the failed child re-spawns it fresh (the old session is cleaned up).
    llm.use(parentScript([call('f2', 'sendMessage', { name: 'bad', message: 'fine now' })]));
    await runParent('cb-fail', 'retry');
    expect(await toolResultOf(runtime.stateStore, 'cb-fail', 'f2')).toMatchObject({ content: { status: 'completed', output: { answer: 're: fine now' } }, isError: false });
    const { messages } = await runtime.stateStore.getMessages('cb-fail-agent-bad');
    expect(messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(['fine now']);
    expect(await markerOf(runtime.stateStore, 'cb-fail-agent-bad')).toMatchObject({ workflowId: 'cb-fail-agent-bad-spawn-f2' });
  });

  it('non-blocking spawns return at once, auto-named; the outcome reaches the next parent turn exactly once', async () => {
    llm.use(parentScript([calls(['n1', 'spawnAgent', { agentType: 'watcher', message: 'slow a' }], ['n2', 'spawnAgent', { agentType: 'watcher', message: 'b' }]), { type: 'text', text: 'spawned' }]));
    expect(await runParent('cb-nb', 'go')).toMatchObject({ status: 'completed', output: 'spawned' });
    expect((await toolResultOf(runtime.stateStore, 'cb-nb', 'n1')).content).toEqual({ name: 'watcher-1', sessionId: 'cb-nb-agent-watcher-1', status: 'running' });
    expect((await toolResultOf(runtime.stateStore, 'cb-nb', 'n2')).content).toMatchObject({ name: 'watcher-2' });
    await eventually('both children completed', async () => {
      const refs = await runtime.stateStore.getSubSessionRefs('cb-nb');
      return refs.length === 2 && refs.every((ref) => ref.status === 'completed');
    });

    llm.use(parentScript([{ type: 'text', text: 'noted' }]));
    await runParent('cb-nb', 'next');
    llm.use(parentScript([{ type: 'text', text: 'again' }]));
    await runParent('cb-nb', 'after');
    const { messages } = await runtime.stateStore.getMessages('cb-nb');
    const delivered = messages.filter((message) => message.id?.startsWith('companion:'));
    expect(delivered.map((message) => message.content)).toEqual([
      expect.stringContaining('[companion watcher-1 (watcher) finished]'),
      expect.stringContaining('[companion watcher-2 (watcher) finished]'),
    ]);
    expect(String(delivered[0]?.content)).toContain('"seen":"slow a"');
    expect((await runtime.stateStore.getSubSessionRefs('cb-nb')).every((ref) => ref.completionDelivered === true)).toBe(true);
    // Delivered after the turn's user message and before its first model call.
    const index = messages.findIndex((message) => message.content === 'next');
    expect(messages[index + 1]?.id).toMatch(/^companion:/);
  });

  it('sendMessage to a running child is queued into its inbox: both turns run once, in order', async () => {
    llm.use(parentScript([call('q1', 'spawnAgent', { agentType: 'watcher', name: 'w', message: 'slow one' }), call('q2', 'sendMessage', { name: 'w', message: 'two' }), { type: 'text', text: 'sent' }]));
    await runParent('cb-q', 'go');
    expect((await toolResultOf(runtime.stateStore, 'cb-q', 'q2')).content).toEqual({ name: 'w', sessionId: 'cb-q-agent-w', status: 'running' });
    await eventually('two child turns', async () => {
      const { runs } = await runtime.stateStore.listRuns('cb-q-agent-w');
      return runs.length === 2 && runs.every((run) => run.status === 'completed');
    });
    const { runs } = await runtime.stateStore.listRuns('cb-q-agent-w');
    // One workflow ran both turns (the message went into the live inbox).
    expect(new Set(runs.map((run) => run.workflowId))).toEqual(new Set(['cb-q-agent-w-spawn-q1']));
    const { messages } = await runtime.stateStore.getMessages('cb-q-agent-w');
    expect(messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(['slow one', 'two']);
  });

  it('listChildren, getChildStatus, terminateChild; waitForResult with and without a timeout', async () => {
    llm.use(
      parentScript([
        calls(['t1', 'spawnAgent', { agentType: 'watcher', name: 'long', message: 'stall' }], ['t2', 'spawnAgent', { agentType: 'watcher', name: 'quick', message: 'slow q' }]),
        calls(['t3', 'listChildren', {}], ['t4', 'waitForResult', { name: 'quick', timeoutMs: 50 }]),
        call('t5', 'waitForResult', { name: 'quick' }),
        calls(['t6', 'terminateChild', { name: 'long', reason: 'enough' }], ['t7', 'getChildStatus', { name: 'long' }], ['t8', 'getChildStatus', { name: 'nobody' }]),
        { type: 'text', text: 'fin' },
      ]),
    );
    expect(await runParent('cb-t', 'go')).toMatchObject({ status: 'completed', output: 'fin' });
    expect((await toolResultOf(runtime.stateStore, 'cb-t', 't3')).content).toEqual({
      children: [
        { name: 'long', agentType: 'watcher', status: 'running', sessionId: 'cb-t-agent-long' },
        { name: 'quick', agentType: 'watcher', status: 'running', sessionId: 'cb-t-agent-quick' },
      ],
    });
    expect((await toolResultOf(runtime.stateStore, 'cb-t', 't4')).content).toEqual({ name: 'quick', status: 'running', timedOut: true });
    expect((await toolResultOf(runtime.stateStore, 'cb-t', 't5')).content).toEqual({ name: 'quick', status: 'completed', output: { seen: 'slow q' } });
    expect((await toolResultOf(runtime.stateStore, 'cb-t', 't6')).content).toEqual({ name: 'long', status: 'terminated' });
    expect((await toolResultOf(runtime.stateStore, 'cb-t', 't7')).content).toMatchObject({ name: 'long', status: 'terminated' });
    expect(await toolResultOf(runtime.stateStore, 'cb-t', 't8')).toMatchObject({ isError: true });
    expect(await refOf('cb-t', 'long')).toMatchObject({ status: 'terminated' });
    expect(await runtime.stateStore.loadState('cb-t-agent-long')).toMatchObject({ status: 'failed', failureReason: 'aborted' });
    expect((await DBOS.getWorkflowStatus('cb-t-agent-long-spawn-t1'))?.status).toBe('CANCELLED');
    expect((await runtime.stateStore.getCurrentRun('cb-t-agent-long'))?.status).toBe('aborted');
    // The waited-for outcome was delivered inline: not again in the next turn.
    expect(await refOf('cb-t', 'quick')).toMatchObject({ completionDelivered: true });
  });

  it('two sendMessage calls in one step to a parked completed child: one continuation, both messages handled once', async () => {
    llm.use(parentScript([call('d1', 'spawnAgent', { agentType: 'watcher', name: 'w', message: 'first' })]));
    await runParent('cb-dup', 'go');
    await eventually('the child completed and parked', async () => (await markerOf(runtime.stateStore, 'cb-dup-agent-w'))?.phase === 'closed');
    llm.use(parentScript([calls(['d2', 'sendMessage', { name: 'w', message: 'second' }], ['d3', 'sendMessage', { name: 'w', message: 'third' }])]));
    await runParent('cb-dup', 'more');
    await eventually('three child turns', async () => {
      const { runs } = await runtime.stateStore.listRuns('cb-dup-agent-w');
      return runs.length === 3 && runs.every((run) => run.status === 'completed');
    });
    const { runs } = await runtime.stateStore.listRuns('cb-dup-agent-w');
    expect(runs.map((run) => run.workflowId)).toEqual(['cb-dup-agent-w-spawn-d1', 'cb-dup-agent-w-continue-d2', 'cb-dup-agent-w-continue-d2']);
    const { messages } = await runtime.stateStore.getMessages('cb-dup-agent-w');
    expect(messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(['first', 'second', 'third']);
    expect(await DBOS.getWorkflowStatus('cb-dup-agent-w-continue-d3')).toBeNull();
  });

  it('two concurrent callers message one parked completed child: one continuation wins, both messages run once', async () => {
    llm.use(parentScript([call('x1', 'spawnAgent', { agentType: 'watcher', name: 'w', message: 'first' })]));
    await runParent('cb-race', 'go');
    await eventually('the child parked', async () => (await markerOf(runtime.stateStore, 'cb-race-agent-w'))?.phase === 'closed');
    const callers = ['x2', 'x3'].map((toolCallId) => ({ parentSessionId: 'cb-race', rootSessionId: 'cb-race', toolCallId, runId: companionTurnRunId('run-race', toolCallId), hitlWarmWindowMs: 60_000 }));
    // Both callers' CompanionStep routing at once (the real step code), then what each caller's workflow body does.
    const deliveries = await Promise.all(callers.map((caller) => messageCompanion(runtime.stateStore, caller, 'cb-race-agent-w', `from ${caller.toolCallId}`)));
    for (const delivery of deliveries) {
      if (delivery.start !== undefined) await startPersistentWorkflow(delivery.start);
      if (delivery.sendAfterStart !== undefined) await sendInboxTurn(delivery.workflowId, delivery.sendAfterStart);
    }
    await eventually('three child turns', async () => {
      const { runs } = await runtime.stateStore.listRuns('cb-race-agent-w');
      return runs.length === 3 && runs.every((run) => run.status === 'completed');
    });
    const continuations = await Promise.all(['x2', 'x3'].map((id) => DBOS.getWorkflowStatus(`cb-race-agent-w-continue-${id}`)));
    expect(continuations.filter((status) => status !== null)).toHaveLength(1);
    const { messages } = await runtime.stateStore.getMessages('cb-race-agent-w');
    expect(messages.filter((message) => message.role === 'user').map((message) => message.content).sort()).toEqual(['first', 'from x2', 'from x3']);
  });

  it('a persistent-mode parent: a blocking spawn answers inline; a non-blocking outcome reaches its next turn once', async () => {
    llm.use(parentScript([calls(['pp1', 'spawnAgent', { agentType: 'researcher', name: 'r', message: 'inline' }], ['pp2', 'spawnAgent', { agentType: 'watcher', name: 'w', message: 'later' }]), { type: 'text', text: 'turn one' }]));
    const first = await runtime.executor.execute(boss, 'go', { sessionId: 'cb-pp', mode: 'persistent' });
    expect(await first.result()).toMatchObject({ status: 'completed', output: 'turn one' });
    expect((await toolResultOf(runtime.stateStore, 'cb-pp', 'pp1')).content).toEqual({ name: 'r', status: 'completed', output: { answer: 're: inline' } });
    await eventually('the watcher completed', async () => (await runtime.stateStore.getSubSessionRefs('cb-pp')).find((ref) => ref.name === 'w')?.status === 'completed');
    llm.use(parentScript([{ type: 'text', text: 'turn two' }]));
    const second = await runtime.executor.execute(boss, 'next', { sessionId: 'cb-pp', mode: 'persistent' });
    expect(await second.result()).toMatchObject({ status: 'completed', output: 'turn two' });
    const { messages } = await runtime.stateStore.getMessages('cb-pp');
    expect(messages.filter((message) => message.id?.startsWith('companion:')).map((message) => message.content)).toEqual([expect.stringContaining('[companion w (watcher) finished]')]);
  });
});

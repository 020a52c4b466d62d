import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM, sleep } from '../executor/executor-test-kit.js';
import type { PersistentTurnMessage, PersistentWorkflowInput } from '../../../src/orchestration/persistent-session.js';
import { startPersistentWorkflow } from '../../../src/workflows/persistent.workflow.js';
import { chat, eventually, lastUserText, markerOf, userTexts, workflowEnd } from './persistent-kit.js';

const llm = scriptedLLM();
let runtime: TestRuntime;
/** Parks 300 ms after a turn. */
let parking: DBOSAgentExecutor;
beforeAll(async () => {
  runtime = await startTestRuntime('persistent_lifecycle', llm.adapter, { persistentWarmWindowMs: 60_000 });
  parking = new DBOSAgentExecutor({ stateStore: runtime.stateStore, streamManager: runtime.streamManager, llmAdapter: llm.adapter, usageStore: runtime.usageStore, persistentWarmWindowMs: 300 });
});
afterAll(async () => {
  await runtime?.shutdown();
});

const echo = () => llm.use((input) => ({ type: 'text', text: `echo: ${lastUserText(input)}` }));

describe('persistent session lifecycle', () => {
  it('ends with idle_timeout (per-execute override, durable time) and a later message restarts it with the whole history', async () => {
    echo();
    const first = await runtime.executor.execute(chat, 'one', { sessionId: 'idle-1', mode: 'persistent', idleTimeoutMs: 400 });
    await first.result();
    const ended = await workflowEnd('chat__idle-1__persistent');
    expect(ended).toMatchObject({ endReason: 'idle_timeout', completionReason: 'idle_timeout', turns: 1 });
    expect(await markerOf(runtime.stateStore, 'idle-1')).toMatchObject({ phase: 'closed', endReason: 'idle_timeout' });

    const second = await runtime.executor.execute(chat, 'two', { sessionId: 'idle-1', mode: 'persistent' });
    expect(second.workflowId).toBe('chat__idle-1__persistent__restart-1');
    expect(await second.result()).toMatchObject({ status: 'completed', output: 'echo: two' });
    expect(userTexts(llm.adapter.calls.at(-1)!)).toEqual(['one', 'two']);
    const state = await runtime.stateStore.loadState('idle-1');
    expect(state?.metadata?.dbosWorkflowId).toBe('chat__idle-1__persistent__restart-1');
    // The override carries over to the restarted generation.
    expect(await workflowEnd('chat__idle-1__persistent__restart-1')).toMatchObject({ endReason: 'idle_timeout' });
    expect((await runtime.stateStore.listRuns('idle-1')).runs.map((run) => run.workflowId)).toEqual([
      'chat__idle-1__persistent',
      'chat__idle-1__persistent__restart-1',
    ]);
  });

  it('a parked session past its idle timeout is recorded idle_timeout on the next status read', async () => {
    echo();
    const first = await parking.execute(chat, 'a', { sessionId: 'park-idle', mode: 'persistent', idleTimeoutMs: 2_000 });
    await first.result();
    await workflowEnd('chat__park-idle__persistent');
    const parked = await markerOf(runtime.stateStore, 'park-idle');
    expect(parked).toMatchObject({ phase: 'closed', endReason: 'parked' });
    // Before the deadline a status read changes nothing; nothing else decides it after the deadline.
    expect(await parking.getHandle(chat, 'park-idle')).not.toBeNull();
    const readBeforeDeadline = Date.now() < (parked?.idleDeadlineAt ?? 0);
    await eventually('the idle deadline passed', async () => Date.now() > (parked?.idleDeadlineAt ?? Infinity));
    if (readBeforeDeadline) expect(await markerOf(runtime.stateStore, 'park-idle')).toMatchObject({ endReason: 'parked' });
    const handle = await parking.getHandle(chat, 'park-idle');
    expect(handle?.runId).toBe(first.runId);
    expect(await markerOf(runtime.stateStore, 'park-idle')).toMatchObject({ phase: 'closed', endReason: 'idle_timeout', idleDeadlineAt: parked?.idleDeadlineAt });
    // The next message starts it again, with the whole history.
    const again = await parking.execute(chat, 'b', { sessionId: 'park-idle', mode: 'persistent' });
    expect(await again.result()).toMatchObject({ status: 'completed', output: 'echo: b' });
    expect(userTexts(llm.adapter.calls.at(-1)!)).toEqual(['a', 'b']);
  });

  it('parks after the warm window (the workflow ends) and the next message restarts it in place', async () => {
    echo();
    const first = await parking.execute(chat, 'a', { sessionId: 'park-1', mode: 'persistent' });
    expect(await first.result()).toMatchObject({ output: 'echo: a' });
    expect(await workflowEnd('chat__park-1__persistent')).toMatchObject({ endReason: 'parked', completionReason: 'suspended' });
    const marker = await markerOf(runtime.stateStore, 'park-1');
    expect(marker).toMatchObject({ phase: 'closed', endReason: 'parked' });
    expect(marker?.idleDeadlineAt).toBeGreaterThan(Date.now());
    expect((await DBOS.getWorkflowStatus('chat__park-1__persistent'))?.status).toBe('SUCCESS');

    const again = await parking.execute(chat, 'b', { sessionId: 'park-1', mode: 'persistent' });
    expect(await again.result()).toMatchObject({ status: 'completed', output: 'echo: b' });
    expect(userTexts(llm.adapter.calls.at(-1)!)).toEqual(['a', 'b']);
    expect(again.workflowId).toBe('chat__park-1__persistent__restart-1');
  });

  it('replays a generation that ran turns and parked deterministically: same result, no LLM call, turn or message again', async () => {
    echo();
    const sessionId = 'park-replay';
    await (await parking.execute(chat, 'x', { sessionId, mode: 'persistent' })).result();
    await (await parking.execute(chat, 'y', { sessionId, mode: 'persistent' })).result();
    const workflowId = 'chat__park-replay__persistent';
    const ended = await workflowEnd(workflowId);
    const calls = llm.adapter.calls.length;
    const messages = (await runtime.stateStore.getMessages(sessionId)).total;
    const steps = (await DBOS.listWorkflowSteps(workflowId)) ?? [];
    // Rewinding past the last recorded step keeps every checkpoint: the body re-runs answered from its records.
    const replay = await DBOS.rewindWorkflow(workflowId, { startStep: Math.max(...steps.map((step) => step.functionID)) + 1 });
    expect(await replay.getResult()).toEqual(ended);
    expect(llm.adapter.calls.length).toBe(calls);
    expect((await runtime.stateStore.getMessages(sessionId)).total).toBe(messages);
    expect((await runtime.stateStore.listRuns(sessionId)).runs).toHaveLength(2);
    expect(((await DBOS.listWorkflowSteps(workflowId)) ?? []).length).toBe(steps.length);
  });

  it('messages racing a park are never lost: each one runs exactly once', async () => {
    echo();
    await (await parking.execute(chat, 'start', { sessionId: 'park-race', mode: 'persistent' })).result();
    const sent: string[] = [];
    const handles = [];
    // Send around the park (300 ms after the turn): some go to the live workflow, some race its close, some restart it.
    // Gaps around the 300 ms warm window (a turn takes tens of ms); the 700 ms ones always park.
    const gaps = [100, 700, 330, 360, 340, 420, 350, 300, 390, 345, 355, 700];
    for (let index = 0; index < gaps.length; index += 1) {
      await sleep(gaps[index]!);
      sent.push(`r${index}`);
      handles.push(await parking.execute(chat, `r${index}`, { sessionId: 'park-race', mode: 'persistent' }));
    }
    const results = await Promise.all(handles.map((handle) => handle.result()));
    results.forEach((result, index) => expect(result).toMatchObject({ status: 'completed', output: `echo: r${index}` }));
    const seen = llm.adapter.calls.filter((call) => call.sessionId === 'park-race').map(lastUserText);
    expect(seen.toSorted()).toEqual(['start', ...sent].toSorted());
    const { runs } = await runtime.stateStore.listRuns('park-race');
    expect(runs).toHaveLength(13);
    // The session parked and restarted on the way (several generations ran the turns).
    expect(new Set(runs.map((run) => run.workflowId)).size).toBeGreaterThan(1);
  });

  it('parked sessions race restarts: concurrent messages to a parked session start one new generation', async () => {
    echo();
    await (await parking.execute(chat, 'first', { sessionId: 'park-2', mode: 'persistent' })).result();
    await eventually('the park', async () => (await markerOf(runtime.stateStore, 'park-2'))?.phase === 'closed');
    const handles = await Promise.all(Array.from({ length: 8 }, (_, index) => parking.execute(chat, `c${index}`, { sessionId: 'park-2', mode: 'persistent' })));
    const results = await Promise.all(handles.map((handle) => handle.result()));
    expect(results.map((result) => result.status)).toEqual(Array(8).fill('completed'));
    expect(new Set(handles.map((handle) => handle.workflowId))).toEqual(new Set(['chat__park-2__persistent__restart-1']));
    expect((await runtime.stateStore.listRuns('park-2')).runs).toHaveLength(9);
  });

  it('a generation started after the session moved on ends superseded and runs nothing, with or without a first message', async () => {
    echo();
    await (await runtime.executor.execute(chat, 'one', { sessionId: 'sup-1', mode: 'persistent' })).result();
    const live = await markerOf(runtime.stateStore, 'sup-1');
    expect(live).toMatchObject({ workflowId: 'chat__sup-1__persistent', phase: 'live' });
    const stale = (generation: number, initialMessages: PersistentTurnMessage[]): PersistentWorkflowInput => ({
      ...live!.start!,
      workflowId: `chat__sup-1__persistent__restart-${generation}`,
      generation,
      initialMessages,
    });
    // With a message, the first openTurn takes the inbox (no open step): it finds the marker elsewhere.
    const withMessage = stale(7, [{ kind: 'turn', runId: 'run-stale', userMessage: { id: 'run-stale:0:0', role: 'user', content: 'stale' } }]);
    await startPersistentWorkflow(withMessage);
    expect(await workflowEnd(withMessage.workflowId)).toMatchObject({ endReason: 'superseded', completionReason: 'suspended', turns: 0 });
    // Without one, the open step does.
    const empty = stale(8, []);
    await startPersistentWorkflow(empty);
    expect(await workflowEnd(empty.workflowId)).toMatchObject({ endReason: 'superseded', turns: 0 });
    expect(await runtime.stateStore.getRun('sup-1', 'run-stale')).toBeNull();
    expect((await runtime.stateStore.getMessages('sup-1')).messages.map((message) => message.content)).not.toContain('stale');
    expect(await markerOf(runtime.stateStore, 'sup-1')).toEqual(live);
    // The live generation still takes messages.
    const next = await runtime.executor.execute(chat, 'two', { sessionId: 'sup-1', mode: 'persistent' });
    expect(next.workflowId).toBe('chat__sup-1__persistent');
    expect(await next.result()).toMatchObject({ status: 'completed', output: 'echo: two' });
  });
});

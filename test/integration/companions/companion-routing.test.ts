/**
 * Routing of a parked non-blocking companion's human call with `autoResumeOnSubmit`, on real DBOS + Postgres (a
 * blocking one parks its parent: companion-blocking-park.test.ts): the answer is
 * submitted against the root session (never the companion's own) and resumes the companion's session, whose turn
 * finishes; its outcome reaches the parent's ref and the parent's next turn, as for a companion that never parked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';
import { eventually, markerOf } from '../persistent/persistent-kit.js';
import { defineAgent } from '../../../src/agent/index.js';
import { call, clerk, clerkReply, toolResultOf } from './companion-kit.js';

/** A parent with the clerk as a non-blocking companion: it does not wait for (or park with) the clerk's human. */
const lobby = defineAgent({ name: 'lobby', systemPrompt: 'Delegate to the clerk.', maxSteps: 4, persistentAgents: [{ agent: clerk, mode: 'non-blocking' }] });

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('companion_routing', llm.adapter, { persistentWarmWindowMs: 300, hitlWarmWindowMs: 200, autoResumeOnSubmit: true });
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('a parked companion with autoResumeOnSubmit', () => {
  it('is resumed by the submission against the root; its outcome reaches the ref and the next parent turn', async () => {
    let parentCalls = 0;
    llm.use((input) => {
      if (input.agentType === 'clerk') return clerkReply(input);
      parentCalls += 1;
      return parentCalls === 1 ? call('r1', 'spawnAgent', { agentType: 'clerk', name: 'k', message: 'ship it?' }) : { type: 'text', text: `lobby ${parentCalls}` };
    });
    const first = await runtime.executor.execute(lobby, 'go', { sessionId: 'cr-auto' });
    await first.result();
    await eventually('the parent run completed', async () => (await runtime.stateStore.getCurrentRun('cr-auto'))?.status === 'completed');
    await eventually('the companion parked', async () => (await markerOf(runtime.stateStore, 'cr-auto-agent-k'))?.endReason === 'suspended');
    expect(await toolResultOf(runtime.stateStore, 'cr-auto', 'r1')).toMatchObject({ content: { name: 'k', status: 'running' } });
    const parkedRun = await runtime.stateStore.getCurrentRun('cr-auto-agent-k');

    const submitted = await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'cr-auto', toolCallId: 'confirm-cr-auto-agent-k', result: { yes: 2 } });
    expect(submitted).toMatchObject({ status: 'accepted', next: 'resumed' });
    expect(submitted.runId).toBeDefined();
    expect(submitted.runId).not.toBe(parkedRun?.runId);
    await eventually("the companion's resumed turn completed", async () => (await runtime.stateStore.getRun('cr-auto-agent-k', submitted.runId ?? ''))?.status === 'completed');
    await eventually('the ref records the outcome', async () => (await runtime.stateStore.getSubSessionRefs('cr-auto'))[0]?.status === 'completed');
    expect((await runtime.stateStore.getSubSessionRefs('cr-auto'))[0]).toMatchObject({ output: { confirmed: { yes: 2 } } });

    const next = await runtime.executor.execute(lobby, 'next', { sessionId: 'cr-auto' });
    expect(await next.result()).toMatchObject({ status: 'completed' });
    const { messages } = await runtime.stateStore.getMessages('cr-auto');
    const delivered = messages.filter((message) => message.id?.startsWith('companion:'));
    expect(delivered.map((message) => message.content)).toEqual(['[companion k (clerk) finished] {"name":"k","status":"completed","output":{"confirmed":{"yes":2}}}']);
  });
});

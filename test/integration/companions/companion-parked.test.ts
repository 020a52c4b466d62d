/**
 * A companion whose human call outlives the warm window parks like any persistent session: the blocking parent is
 * told the child waits for a human, a message to it is refused, the answer is submitted against the root, and
 * resume() of the companion session finishes its turn; the parent's next turn receives the outcome once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';
import { eventually, markerOf } from '../persistent/persistent-kit.js';
import { defineAgent } from '../../../src/agent/index.js';
import { call, clerk, clerkReply, confirm, desk, toolResultOf } from './companion-kit.js';

/** A parent that asks its own human too, with the clerk as a non-blocking companion. */
const counter = defineAgent({ name: 'counter', systemPrompt: 'Ask, and delegate.', tools: [confirm], maxSteps: 5, persistentAgents: [{ agent: clerk, mode: 'non-blocking' }] });

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('companion_parked', llm.adapter, { persistentWarmWindowMs: 300, hitlWarmWindowMs: 200 });
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('a parked companion', () => {
  it('reports waiting for a human, refuses messages, is resumed on its own session and delivered to the next parent turn', async () => {
    let parentCalls = 0;
    llm.use((input) => {
      if (input.agentType === 'clerk') return clerkReply(input);
      parentCalls += 1;
      if (parentCalls === 1) return call('p1', 'spawnAgent', { agentType: 'clerk', name: 'k', message: 'ship it?' });
      if (parentCalls === 2) return call('p2', 'sendMessage', { name: 'k', message: 'hurry' });
      return { type: 'text', text: `desk ${parentCalls}` };
    });
    const first = await runtime.executor.execute(desk, 'go', { sessionId: 'cc-park' });
    // Like an ephemeral child's, the companion's open call shows on the root's handle while the parent runs on.
    expect(await first.result()).toMatchObject({ status: 'suspended_client_tool', suspended: { toolCallIds: ['confirm-cc-park-agent-k'] } });
    await eventually('the parent run completed', async () => (await runtime.stateStore.getCurrentRun('cc-park'))?.status === 'completed');
    expect((await runtime.stateStore.loadState('cc-park'))?.output).toBe('desk 3');
    expect(await toolResultOf(runtime.stateStore, 'cc-park', 'p1')).toMatchObject({ content: { name: 'k', status: 'paused_awaiting_client' }, isError: false });
    expect(await toolResultOf(runtime.stateStore, 'cc-park', 'p2')).toMatchObject({ isError: true });
    expect((await runtime.stateStore.getSubSessionRefs('cc-park'))[0]).toMatchObject({ status: 'paused_awaiting_client' });
    expect(await markerOf(runtime.stateStore, 'cc-park-agent-k')).toMatchObject({ phase: 'closed', endReason: 'suspended' });

    const submitted = await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'cc-park', toolCallId: 'confirm-cc-park-agent-k', result: { yes: 1 } });
    expect(submitted.status).toBe('accepted');
    const resumed = await runtime.executor.resume(clerk, 'cc-park-agent-k');
    expect(await resumed.result()).toMatchObject({ status: 'completed', output: { confirmed: { yes: 1 } } });
    await eventually('the ref records the outcome', async () => (await runtime.stateStore.getSubSessionRefs('cc-park'))[0]?.status === 'completed');

    const next = await runtime.executor.execute(desk, 'next', { sessionId: 'cc-park' });
    await next.result();
    const { messages } = await runtime.stateStore.getMessages('cc-park');
    const delivered = messages.filter((message) => message.id?.startsWith('companion:'));
    expect(delivered.map((message) => message.content)).toEqual(['[companion k (clerk) finished] {"name":"k","status":"completed","output":{"confirmed":{"yes":1}}}']);
  });

  it('resume() of a root parked for its own human continues its parked companion too (answers submitted against the root)', async () => {
    let parentCalls = 0;
    llm.use((input) => {
      if (input.agentType === 'clerk') return clerkReply(input);
      parentCalls += 1;
      if (parentCalls === 1) return call('q1', 'spawnAgent', { agentType: 'clerk', name: 'k', message: 'ship it?' });
      if (parentCalls === 2) return { type: 'tool_calls', toolCalls: [{ id: 'own-1', name: 'confirm', arguments: { what: 'really?' } }] };
      return { type: 'text', text: `counter ${parentCalls}` };
    });
    const first = await runtime.executor.execute(counter, 'go', { sessionId: 'cp-own' });
    expect(await first.result()).toMatchObject({ status: 'suspended_client_tool' });
    await eventually('the companion parked', async () => (await markerOf(runtime.stateStore, 'cp-own-agent-k'))?.endReason === 'suspended');
    await eventually('the root parked', async () => (await runtime.stateStore.getCurrentRun('cp-own'))?.status === 'suspended_client_tool');
    for (const toolCallId of ['confirm-cp-own-agent-k', 'own-1']) {
      const submitted = await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'cp-own', toolCallId, result: { ok: toolCallId } });
      expect(submitted).toMatchObject({ status: 'accepted' });
    }
    expect((await runtime.stateStore.getCurrentRun('cp-own-agent-k'))?.status).toBe('suspended_client_tool');

    const resumed = await runtime.executor.resume(counter, 'cp-own');
    expect(await resumed.result()).toMatchObject({ status: 'completed', output: 'counter 3' });
    await eventually("the companion's turn completed", async () => (await runtime.stateStore.getCurrentRun('cp-own-agent-k'))?.status === 'completed');
    await eventually('the ref records the outcome', async () => (await runtime.stateStore.getSubSessionRefs('cp-own'))[0]?.status === 'completed');
    expect((await runtime.stateStore.getSubSessionRefs('cp-own'))[0]).toMatchObject({ output: { confirmed: { ok: 'confirm-cp-own-agent-k' } } });
  });
});

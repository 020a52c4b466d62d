/**
 * A companion whose human call outlives the warm window parks like any persistent session. A blocking parent parks
 * awaiting it (`suspended_awaiting_children`) and `resume(root)` continues the companion's turn (the answer is
 * submitted against the root); a parent that parks for its own human leaves a non-blocking companion parked on its
 * own session, and resume(root) continues that one too.
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
  it('a blocking parent parks awaiting it; resume(root) continues its turn (parking again while unanswered) and the blocked call gets its result in the same parent turn', async () => {
    let parentCalls = 0;
    llm.use((input) => {
      if (input.agentType === 'clerk') return clerkReply(input);
      parentCalls += 1;
      if (parentCalls === 1) return call('p1', 'spawnAgent', { agentType: 'clerk', name: 'k', message: 'ship it?' });
      return { type: 'text', text: `desk ${parentCalls}` };
    });
    const first = await runtime.executor.execute(desk, 'go', { sessionId: 'cc-park' });
    // Like an ephemeral child's, the companion's open call shows on the root's handle.
    expect(await first.result()).toMatchObject({ status: 'suspended_client_tool', suspended: { toolCallIds: ['confirm-cc-park-agent-k'] } });
    await eventually('the parent parked awaiting children', async () => (await runtime.stateStore.getCurrentRun('cc-park'))?.status === 'suspended_awaiting_children');
    expect((await runtime.stateStore.getSubSessionRefs('cc-park'))[0]).toMatchObject({ status: 'paused_awaiting_client' });
    await eventually('the companion parked', async () => (await markerOf(runtime.stateStore, 'cc-park-agent-k'))?.endReason === 'suspended');

    // resume(root) before the answer: the companion's turn is continued, waits warm, parks again, and so does the root.
    const early = await runtime.executor.resume(desk, 'cc-park');
    await eventually('the resumed root parked again', async () => {
      const run = await runtime.stateStore.getCurrentRun('cc-park');
      return run?.runId === early.runId && run.status === 'suspended_awaiting_children';
    });
    expect((await runtime.stateStore.listRuns('cc-park-agent-k')).runs.map((run) => run.status)).toEqual(['suspended_client_tool', 'suspended_client_tool']);

    const submitted = await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'cc-park', toolCallId: 'confirm-cc-park-agent-k', result: { yes: 1 } });
    expect(submitted).toMatchObject({ status: 'accepted', next: 'needs_resume' });
    const resumed = await runtime.executor.resume(desk, 'cc-park');
    expect(await resumed.result()).toMatchObject({ status: 'completed', output: 'desk 2' });
    expect(await toolResultOf(runtime.stateStore, 'cc-park', 'p1')).toEqual({ content: { name: 'k', status: 'completed', output: { confirmed: { yes: 1 } } }, isError: false });
    // resume(root) continued the companion once (its own resume of parked companions skips one a parked parent awaits).
    expect((await runtime.stateStore.listRuns('cc-park-agent-k')).runs.map((run) => run.status)).toEqual(['suspended_client_tool', 'suspended_client_tool', 'completed']);
    expect((await runtime.stateStore.getSubSessionRefs('cc-park'))[0]).toMatchObject({ status: 'completed', completionDelivered: true });

    // Delivered in the same turn: the next turn appends nothing.
    const next = await runtime.executor.execute(desk, 'next', { sessionId: 'cc-park' });
    await next.result();
    const { messages } = await runtime.stateStore.getMessages('cc-park');
    expect(messages.filter((message) => message.id?.startsWith('companion:'))).toEqual([]);
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

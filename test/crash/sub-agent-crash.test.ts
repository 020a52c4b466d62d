/**
 * SIGKILL drills around ephemeral sub-agents (child DBOS workflows): killed while the child runs a tool, and killed
 * after the child finished while the parent's sibling tool still runs (before the parent's commit). A recovery-only
 * process finishes both runs; nothing that finished runs again and the parent records exactly one result.
 */
import { describe, expect, it } from 'vitest';
import { useDrill } from './support/drill.js';
import { childOf, DRILL_SCENARIOS } from './support/drill-scenarios.js';
import { killAndRecover, startDoomedRun, waitForSignal } from './support/drill-flow.js';
import { chunkRowCount, toolRunCounts } from './support/durable-probes.js';
import { describeConversation, storedMessages } from './support/session-snapshot.js';

const TOOL_DRILL = 'sub-tool-drill';
const DONE_DRILL = 'sub-done-drill';

const env = useDrill('crash_sub_agents', {
  sessions: [
    [TOOL_DRILL, DRILL_SCENARIOS.delegateThenAnswer, { crash: true }],
    [childOf(TOOL_DRILL), DRILL_SCENARIOS.childLookup, { crash: true }],
    [DONE_DRILL, DRILL_SCENARIOS.delegateAndBlock, { crash: true }],
    [childOf(DONE_DRILL), DRILL_SCENARIOS.childLookup],
  ],
});

describe('crash drill: SIGKILL around sub-agents', () => {
  it('killed while the child runs a tool: the child continues after restart and the parent records one result', async () => {
    const child = childOf(TOOL_DRILL);
    const doomed = await startDoomedRun(env, 'crash-sub-tool', TOOL_DRILL, DRILL_SCENARIOS.childLookup.blockToolCalls);
    await waitForSignal(doomed.worker, 'the child lookup running', async () => (await toolRunCounts(env.pool, child)).call_1_lookup_x === 1);

    const { worker: recoverer, result } = await killAndRecover(env, doomed);
    expect(result).toMatchObject({ sessionId: TOOL_DRILL, status: 'completed', output: 'The child reported.' });
    expect(await toolRunCounts(env.pool, child)).toEqual({ call_1_lookup_x: 2 });
    // The re-run tool's tool_start is keyed: the stream shows it once (the root stream carries the child's chunks).
    expect(await chunkRowCount(env.pool, TOOL_DRILL, 'tool_start')).toBe(1);
    expect(await chunkRowCount(env.pool, TOOL_DRILL, 'subagent_start')).toBe(1);
    expect(await chunkRowCount(env.pool, TOOL_DRILL, 'subagent_end')).toBe(1);
    expect(env.llm.countsByStep(child)).toEqual([1, 1]); // the child's finished LLM step was not paid again
    expect(env.llm.countsByStep(TOOL_DRILL)).toEqual([1, 1]);
    expect(recoverer.pid).not.toBe(doomed.worker.pid);
    expect(describeConversation(await storedMessages(env, TOOL_DRILL))).toEqual(['user', 'assistant[call_1_delegate]', 'tool(call_1_delegate)', 'assistant']);
    const delegated = (await storedMessages(env, TOOL_DRILL)).find((message) => message.role === 'tool');
    expect(delegated).toMatchObject({ toolName: 'subagent__crash_child', content: { summary: 'x is known' } });
    expect((await env.stateStore.listRuns(child)).runs).toHaveLength(1);
    expect(await env.stateStore.getSubSessionRefs(TOOL_DRILL)).toEqual([expect.objectContaining({ subSessionId: child, status: 'completed' })]);
  }, 120_000);

  it('killed after the child finished but before the parent committed: the child is not run again', async () => {
    const child = childOf(DONE_DRILL);
    const doomed = await startDoomedRun(env, 'crash-sub-done', DONE_DRILL, DRILL_SCENARIOS.delegateAndBlock.blockToolCalls);
    await waitForSignal(
      doomed.worker,
      'the child completed and the parent lookup b running',
      async () => (await env.stateStore.loadState(child))?.status === 'completed' && (await toolRunCounts(env.pool, DONE_DRILL)).call_1_lookup_b === 1,
    );

    const { result } = await killAndRecover(env, doomed);
    expect(result).toMatchObject({ sessionId: DONE_DRILL, status: 'completed', output: 'Child and b are done.' });
    expect(await toolRunCounts(env.pool, child)).toEqual({ call_1_lookup_x: 1 });
    expect(env.llm.countsByStep(child)).toEqual([1, 1]);
    expect(await toolRunCounts(env.pool, DONE_DRILL)).toEqual({ call_1_lookup_b: 2 });
    expect((await env.stateStore.listRuns(child)).runs).toHaveLength(1);
    expect(describeConversation(await storedMessages(env, DONE_DRILL))).toEqual([
      'user',
      'assistant[call_1_delegate,call_1_lookup_b]',
      'tool(call_1_delegate)',
      'tool(call_1_lookup_b)',
      'assistant',
    ]);
  }, 120_000);
});

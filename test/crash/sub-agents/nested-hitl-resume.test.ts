/**
 * A doubly nested human-in-the-loop tree across processes (real processes, DBOS, Postgres, `@ai-sdk/openai`
 * against the parent's fake server): root → child `hitl_banker` (an approval-gated transfer) → grandchild
 * `hitl_asker` (a client tool). Worker A (application version v1) runs the tree with a short warm window; the
 * control plane answers the child's approval warm, against the ROOT session, so the child continues in place;
 * the grandchild's question then outlasts the window and the grandchild, the child and the root park (A exits).
 * The control plane answers the question against the root; worker C — another executor id and application
 * version v2 — resumes the root and completes the whole tree. The gated tool ran exactly once, in A.
 */
import { describe, expect, it } from 'vitest';
import { useDrill } from '../support/drill.js';
import { expectCleanExit, outcomeOf, startRun } from '../support/drill-flow.js';
import { workflowRowOf } from '../support/durable-probes.js';
import { currentRunOf, untilSessionWaiting } from '../support/hitl-flow.js';
import { executionsOf } from '../support/hitl-probes.js';
import { describeConversation, storedMessages } from '../support/session-snapshot.js';
import { APPROVAL_CHECK_RECORD } from '../worker/hitl-agent.js';
import { bankTree, TREE_ANSWERS, TREE_CALLS } from './tree-scenarios.js';

const ROOT = 'sub-nested';
const tree = bankTree(ROOT);
/** Long enough for the control plane to answer the approval warm on a loaded machine, short enough to park. */
const WARM_WINDOW_MS = 2_000;

const env = useDrill('crash_sub_nested', { controlPlane: true, sessions: tree.scenarios, setupTimeoutMs: 60_000 });

/** `[runId is the first run's, status, previousRunId]` of every run of a session. */
async function runHistory(sessionId: string, firstRunId: string): Promise<unknown[]> {
  return (await env.stateStore.listRuns(sessionId)).runs.map((entry) => [entry.runId === firstRunId, entry.status, entry.previousRunId]);
}

describe('doubly nested human-in-the-loop tree resumed from another process', () => {
  it('approval answered warm in the child, grandchild question answered after the tree parked, resumed by a v2 worker', async () => {
    const { worker: starter, run } = await startRun(env, 'start', 'sub-nested-a', ROOT, { agent: 'hitl', hitlWarmWindowMs: WARM_WINDOW_MS, applicationVersion: 'v1' });
    const childRun = await untilSessionWaiting(env, starter, tree.child, [TREE_CALLS.transfer]);
    expect((await env.stateStore.loadState(ROOT))?.clientToolCallOwnership?.[TREE_CALLS.transfer]).toBe(tree.child);
    const approval = { kind: 'approval-response', sessionId: ROOT, toolCallId: TREE_CALLS.transfer, approvalId: TREE_CALLS.transfer, approved: true } as const;
    expect((await env.control.executor.submitToolResult(approval)).status).toBe('accepted');

    // The child went on in place (same run), delegated the question; then grandchild, child and root parked.
    const { result: parked } = await outcomeOf(starter, ROOT);
    await expectCleanExit(starter);
    expect(parked).toMatchObject({ runId: run.runId, status: 'suspended_client_tool', completionReason: 'suspended', suspended: { toolCallIds: [TREE_CALLS.pickCity] } });
    const grandchildRun = await currentRunOf(env, starter, tree.grandchild);
    // The grandchild waits for a human; its ancestors record that only their children wait.
    for (const [sessionId, runId, parkedAs] of [
      [ROOT, run.runId, 'suspended_awaiting_children'],
      [tree.child, childRun.runId, 'suspended_awaiting_children'],
      [tree.grandchild, grandchildRun.runId, 'suspended_client_tool'],
    ] as const) {
      expect(await runHistory(sessionId, runId)).toEqual([[true, parkedAs, undefined]]);
    }
    for (const workflowId of [run.workflowId, childRun.workflowId, grandchildRun.workflowId]) {
      expect(await workflowRowOf(env.pool, workflowId)).toMatchObject({ status: 'SUCCESS', executorId: 'sub-nested-a', applicationVersion: 'v1' });
    }
    expect((await env.stateStore.getSubSessionRefs(ROOT)).map((ref) => ref.status)).toEqual(['paused_awaiting_client']);
    expect((await env.stateStore.getSubSessionRefs(tree.child)).map((ref) => [ref.subSessionId, ref.status])).toEqual([[tree.grandchild, 'paused_awaiting_client']]);
    expect((await env.stateStore.loadState(tree.grandchild))?.pendingClientToolCalls?.[TREE_CALLS.pickCity]).toMatchObject({ kind: 'client' });
    expect((await env.stateStore.loadState(ROOT))?.clientToolCallOwnership?.[TREE_CALLS.pickCity]).toBe(tree.grandchild);
    const gated = {
      [`${APPROVAL_CHECK_RECORD}:${TREE_CALLS.transfer}`]: [starter.pid],
      [`transfer:${TREE_CALLS.transfer}`]: [starter.pid],
    };
    expect(await executionsOf(env.pool, tree.child)).toEqual(gated);

    const answer = { kind: 'client-tool-result', sessionId: ROOT, toolCallId: TREE_CALLS.pickCity, result: { city: 'Rome' } } as const;
    expect((await env.control.executor.submitToolResult(answer)).status).toBe('accepted');
    const { worker: resumer, run: resumed } = await startRun(env, 'resume', 'sub-nested-c', ROOT, { agent: 'hitl', applicationVersion: 'v2' });
    const { result: final } = await outcomeOf(resumer, ROOT);
    await expectCleanExit(resumer);

    expect(resumed.runId).not.toBe(run.runId);
    expect(final).toMatchObject({ runId: resumed.runId, status: 'completed', output: TREE_ANSWERS.bank });
    expect(await executionsOf(env.pool, tree.child)).toEqual(gated); // the gated tool ran exactly once, in A
    expect(await executionsOf(env.pool, ROOT)).toEqual({});
    expect(await executionsOf(env.pool, tree.grandchild)).toEqual({});
    for (const [sessionId, runId, parkedAs] of [
      [ROOT, run.runId, 'suspended_awaiting_children'],
      [tree.child, childRun.runId, 'suspended_awaiting_children'],
      [tree.grandchild, grandchildRun.runId, 'suspended_client_tool'],
    ] as const) {
      expect(await runHistory(sessionId, runId)).toEqual([
        [true, parkedAs, undefined],
        [false, 'completed', runId],
      ]);
      const current = await env.stateStore.getCurrentRun(sessionId);
      expect(await workflowRowOf(env.pool, current?.workflowId ?? '')).toMatchObject({ status: 'SUCCESS', executorId: 'sub-nested-c', applicationVersion: 'v2' });
    }
    expect(await env.stateStore.loadState(tree.grandchild)).toMatchObject({ status: 'completed', output: TREE_ANSWERS.city, parentSessionId: tree.child, rootSessionId: ROOT });
    expect(await env.stateStore.loadState(tree.child)).toMatchObject({ status: 'completed', output: TREE_ANSWERS.receipt, parentSessionId: ROOT, rootSessionId: ROOT });
    expect((await env.stateStore.getSubSessionRefs(ROOT)).map((ref) => ref.status)).toEqual(['completed']);
    expect((await env.stateStore.getSubSessionRefs(tree.child)).map((ref) => ref.status)).toEqual(['completed']);
    const rootState = await env.stateStore.loadState(ROOT);
    expect(rootState).toMatchObject({ status: 'completed', resumeCount: 1 });
    expect(rootState?.pendingClientToolCalls ?? {}).toEqual({});

    // Each LLM step was paid once, in whichever process ran it.
    expect(env.llm.countsByStep(ROOT)).toEqual([1, 1]);
    expect(env.llm.countsByStep(tree.child)).toEqual([1, 1, 1]);
    expect(env.llm.countsByStep(tree.grandchild)).toEqual([1, 1]);
    expect(env.llm.unattributedCount).toBe(0);
    const grandchildMessages = await storedMessages(env, tree.grandchild);
    expect(grandchildMessages.find((message) => message.role === 'tool' && message.toolCallId === TREE_CALLS.pickCity)).toMatchObject({ content: { city: 'Rome' } });
    const childMessages = await storedMessages(env, tree.child);
    expect(describeConversation(childMessages).slice(0, 5)).toEqual([
      'user',
      `assistant[${TREE_CALLS.transfer}]`,
      `tool(${TREE_CALLS.transfer})`,
      `assistant[${TREE_CALLS.ask}]`,
      `tool(${TREE_CALLS.ask})`,
    ]);
    expect(childMessages.find((message) => message.role === 'tool' && message.toolCallId === TREE_CALLS.transfer)).toMatchObject({ content: { moved: 250 } });
    expect(childMessages.find((message) => message.role === 'tool' && message.toolCallId === TREE_CALLS.ask)).toMatchObject({ content: TREE_ANSWERS.city });
    const rootMessages = await storedMessages(env, ROOT);
    expect(describeConversation(rootMessages)).toEqual(['user', `assistant[${TREE_CALLS.bank}]`, `tool(${TREE_CALLS.bank})`, 'assistant']);
    expect(rootMessages.find((message) => message.role === 'tool')).toMatchObject({ content: TREE_ANSWERS.receipt });
  }, 120_000);
});

/**
 * Run control of a sub-agent tree from another process (real processes, DBOS, Postgres, `@ai-sdk/openai` against
 * the parent's fake server). A worker runs the tree; the parent — the control plane, its own DBOS executor id
 * and application version — interrupts or aborts the ROOT through its handle while a CHILD workflow is busy:
 * in an LLM call that never answers, or blocked waiting for a human's approval. The child's run ends within
 * CONTROL_LATENCY_MS of the call (measured to its durable run status, as the other drills do), the whole tree then ends;
 * an interrupted tree is resumed by another worker (the child continues), an aborted one is terminated.
 */
import { describe, expect, it } from 'vitest';
import { createCrashAgent } from '../worker/crash-agent.js';
import { APPROVAL_CHECK_RECORD } from '../worker/hitl-agent.js';
import { NotResumableError } from '../../../src/errors/index.js';
import { useDrill } from '../support/drill.js';
import type { AgentExecutionHandle } from '../../../src/executor/types.js';
import { expectCleanExit, outcomeOf, startRun, type StartedRun } from '../support/drill-flow.js';
import { workflowRowOf } from '../support/durable-probes.js';
import { currentRunOf, untilLLMCall, untilSessionWaiting } from '../support/hitl-flow.js';
import { executionsOf, runStatusReached } from '../support/hitl-probes.js';
import { describeConversation, storedMessages } from '../support/session-snapshot.js';
import type { WorkerProcess } from '../support/worker-process.js';
import { bankTree, hangingChildTree, TREE_ANSWERS, TREE_CALLS } from './tree-scenarios.js';

const IN_LLM = 'sub-ctl-llm';
const WAIT_INTERRUPT = 'sub-ctl-wait-int';
const WAIT_ABORT = 'sub-ctl-wait-abort';
/**
 * A busy child ends this soon after interrupt() or abort() is called on the root: the bound (250 ms) doubled,
 * because the cascade crosses processes and this suite runs beside dozens of others on 2 cores (seen: 186–230 ms, and
 * 286 and 323 ms in full runs on a slower VM). A cascade that missed the child (its LLM call hangs, its approval wait
 * is never woken) takes seconds and still fails; the figures are printed for the 250 ms bound.
 */
const CONTROL_LATENCY_MS = 500;
const STATUS_TIMEOUT_MS = 5_000;

const llmTree = hangingChildTree(IN_LLM);
const interruptTree = bankTree(WAIT_INTERRUPT);
const abortTree = bankTree(WAIT_ABORT);

const env = useDrill('crash_sub_control', {
  controlPlane: true,
  sessions: [[IN_LLM, llmTree.rootScenario], [llmTree.child, llmTree.childScenario, { crash: true }], ...interruptTree.scenarios, ...abortTree.scenarios],
  setupTimeoutMs: 60_000,
});

/**
 * Interrupt the root through its control-plane handle: the child's run ends within CONTROL_LATENCY_MS, then the runner reports the
 * root interrupted and exits, and the child's session is interrupted.
 */
async function interruptAndExpectEnded(runner: WorkerProcess, root: StartedRun, child: StartedRun, handle: AgentExecutionHandle<unknown>): Promise<void> {
  const calledAt = Date.now();
  await handle.interrupt('user pressed stop');
  const returnedAt = Date.now();
  const childSeenAt = await runStatusReached(env.stateStore, child.sessionId, child.runId, 'interrupted', STATUS_TIMEOUT_MS);
  const rootSeenAt = await runStatusReached(env.stateStore, root.sessionId, root.runId, 'interrupted', STATUS_TIMEOUT_MS);
  const childEndedAt = (await env.stateStore.getRun(child.sessionId, child.runId))?.endedAt ?? Number.NaN;
  const latency = { returned: returnedAt - calledAt, childSeen: childSeenAt - calledAt, childEnded: childEndedAt - calledAt, rootSeen: rootSeenAt - calledAt };
  console.info(`[sub-agent control] ${root.sessionId} interrupt latency (ms): ${JSON.stringify(latency)}`);
  expect(latency.childSeen).toBeLessThan(CONTROL_LATENCY_MS);
  expect(latency.childEnded).toBeLessThan(CONTROL_LATENCY_MS);
  const { result } = await outcomeOf(runner, root.sessionId);
  await expectCleanExit(runner);
  expect(result).toMatchObject({ runId: root.runId, status: 'interrupted', completionReason: 'interrupted' });
  expect(await env.stateStore.loadState(child.sessionId)).toMatchObject({ status: 'interrupted' });
}

describe('run control of a sub-agent tree from another process', () => {
  it('interrupt reaches a child inside an LLM call within 500 ms; resume() in another worker completes the tree', async () => {
    const crashAgent = createCrashAgent(env.pool, new Set());
    const { worker: runner, run } = await startRun(env, 'start', 'sub-ctl-llm-a', IN_LLM, { agent: 'crash' });
    await untilLLMCall(env, runner, llmTree.child, 1);
    const childRun = await currentRunOf(env, runner, llmTree.child);
    expect(childRun.record.status).toBe('running');
    const handle = await env.control.handleOf(run, crashAgent);

    await interruptAndExpectEnded(runner, run, childRun, handle);
    expect((await env.stateStore.getSubSessionRefs(IN_LLM)).map((ref) => [ref.subSessionId, ref.status])).toEqual([[llmTree.child, 'interrupted']]);
    expect(await workflowRowOf(env.pool, childRun.workflowId)).toMatchObject({ status: 'SUCCESS', executorId: 'sub-ctl-llm-a' });
    expect(await executionsOf(env.pool, llmTree.child)).toEqual({}); // the hanging call never produced the lookup
    expect(await handle.canResume()).toBe(true);

    const { worker: resumer, run: resumed } = await startRun(env, 'resume', 'sub-ctl-llm-c', IN_LLM, { agent: 'crash' });
    const { result: final } = await outcomeOf(resumer, IN_LLM);
    await expectCleanExit(resumer);
    expect(final).toMatchObject({ runId: resumed.runId, status: 'completed', output: TREE_ANSWERS.delegated });
    // The child continued: a second run of the same child session re-asked its unfinished step, then finished.
    const childRuns = (await env.stateStore.listRuns(llmTree.child)).runs;
    expect(childRuns.map((entry) => [entry.runId === childRun.runId, entry.status, entry.previousRunId])).toEqual([
      [true, 'interrupted', undefined],
      [false, 'completed', childRun.runId],
    ]);
    expect(await env.stateStore.loadState(llmTree.child)).toMatchObject({ status: 'completed', output: TREE_ANSWERS.childSummary });
    expect(env.llm.countsByStep(llmTree.child)).toEqual([2, 1]);
    expect(env.llm.countsByStep(IN_LLM)).toEqual([1, 1]);
    expect(await executionsOf(env.pool, llmTree.child)).toEqual({ [`lookup:${TREE_CALLS.childLookup}`]: [resumer.pid] });
    expect((await env.stateStore.getSubSessionRefs(IN_LLM)).map((ref) => ref.status)).toEqual(['completed']);
    const messages = await storedMessages(env, IN_LLM);
    expect(describeConversation(messages)).toEqual(['user', `assistant[${TREE_CALLS.delegate}]`, `tool(${TREE_CALLS.delegate})`, 'assistant']);
    expect(messages.find((message) => message.role === 'tool')).toMatchObject({ content: TREE_ANSWERS.childSummary });
    expect((await env.stateStore.listRuns(IN_LLM)).runs.map((entry) => [entry.status, entry.previousRunId])).toEqual([
      ['interrupted', undefined],
      ['completed', run.runId],
    ]);
    expect(env.llm.unattributedCount).toBe(0);
  }, 120_000);

  it('interrupt reaches a child waiting for an approval within 500 ms; the tree ends interrupted, resumable', async () => {
    const { worker: runner, run } = await startRun(env, 'start', 'sub-ctl-wait-int-a', WAIT_INTERRUPT, { agent: 'hitl' });
    const childRun = await untilSessionWaiting(env, runner, interruptTree.child, [TREE_CALLS.transfer]);
    const handle = await env.control.handleOf(run);

    await interruptAndExpectEnded(runner, run, childRun, handle);
    expect((await env.stateStore.getSubSessionRefs(WAIT_INTERRUPT)).map((ref) => ref.status)).toEqual(['interrupted']);
    expect(await workflowRowOf(env.pool, childRun.workflowId)).toMatchObject({ status: 'SUCCESS' });
    // The approval predicate ran once; the gated tool never did; the approval still waits in the child's session.
    expect(await executionsOf(env.pool, interruptTree.child)).toEqual({ [`${APPROVAL_CHECK_RECORD}:${TREE_CALLS.transfer}`]: [runner.pid] });
    expect((await env.stateStore.loadState(interruptTree.child))?.pendingClientToolCalls?.[TREE_CALLS.transfer]).toMatchObject({ kind: 'approval' });
    expect(env.llm.countsByStep(interruptTree.child)).toEqual([1]);
    expect(await handle.canResume()).toBe(true);
  }, 90_000);

  it('abort cancels a tree whose child waits for an approval: child run aborted, ref terminated, root not resumable', async () => {
    const { worker: runner, run } = await startRun(env, 'start', 'sub-ctl-wait-abort-a', WAIT_ABORT, { agent: 'hitl' });
    const childRun = await untilSessionWaiting(env, runner, abortTree.child, [TREE_CALLS.transfer]);
    const handle = await env.control.handleOf(run);

    const calledAt = Date.now();
    await handle.abort('no longer needed');
    const returnedAt = Date.now();
    const childSeenAt = await runStatusReached(env.stateStore, abortTree.child, childRun.runId, 'aborted', STATUS_TIMEOUT_MS);
    const rootSeenAt = await runStatusReached(env.stateStore, WAIT_ABORT, run.runId, 'aborted', STATUS_TIMEOUT_MS);
    const { result, at } = await outcomeOf(runner, WAIT_ABORT);
    await expectCleanExit(runner);
    console.info(`[sub-agent control] abort latency (ms): ${JSON.stringify({ returned: returnedAt - calledAt, childSeen: childSeenAt - calledAt, rootSeen: rootSeenAt - calledAt, workerResult: at - calledAt })}`);
    expect(childSeenAt - calledAt).toBeLessThan(CONTROL_LATENCY_MS);
    expect(result).toMatchObject({ runId: run.runId, status: 'aborted', completionReason: 'aborted', error: 'Aborted: no longer needed' });

    expect(await env.stateStore.loadState(abortTree.child)).toMatchObject({ status: 'failed', failureReason: 'aborted' });
    expect(await env.stateStore.loadState(WAIT_ABORT)).toMatchObject({ status: 'failed', failureReason: 'aborted' });
    expect((await env.stateStore.getSubSessionRefs(WAIT_ABORT)).map((ref) => ref.status)).toEqual(['terminated']);
    expect((await workflowRowOf(env.pool, run.workflowId))?.status).toBe('CANCELLED');
    expect((await workflowRowOf(env.pool, childRun.workflowId))?.status).toBe('CANCELLED');
    expect(await executionsOf(env.pool, abortTree.child)).toEqual({ [`${APPROVAL_CHECK_RECORD}:${TREE_CALLS.transfer}`]: [runner.pid] });
    expect(await handle.canResume()).toBe(false);
    await expect(env.control.executor.resume(env.control.agent, WAIT_ABORT)).rejects.toSatisfy((error: unknown) => NotResumableError.isInstance(error));
    expect((await env.stateStore.listRuns(WAIT_ABORT)).runs).toHaveLength(1);
    expect((await env.stateStore.listRuns(abortTree.child)).runs).toHaveLength(1);
    // The approval the terminated child waited for is settled: a late answer (routed through the root) is refused.
    const late = { kind: 'approval-response', sessionId: WAIT_ABORT, toolCallId: TREE_CALLS.transfer, approvalId: TREE_CALLS.transfer, approved: true } as const;
    expect((await env.control.executor.submitToolResult(late)).status).toBe('already_completed');
    expect(await executionsOf(env.pool, abortTree.child)).toEqual({ [`${APPROVAL_CHECK_RECORD}:${TREE_CALLS.transfer}`]: [runner.pid] });
  }, 90_000);
});

/**
 * A blocking companion whose turn waits for a human follows the cascade of ephemeral children: within the warm
 * window the parent waits too; past it the parent's step parks `suspended_awaiting_children` (the root's result
 * lists the companion's open call), the answer is submitted against the ROOT, `autoResumeOnSubmit` resumes the
 * root, whose settle continues the companion's turn and gives the parent's blocked call the companion's real result
 * in the same parent turn. Abort of the parked root closes the companion.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRootParkHeld } from '../run-control/run-control-kit.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';
import { eventually, markerOf } from '../persistent/persistent-kit.js';
import type { LLMGenerateInput } from '../../../src/types/llm.js';
import type { MockLLMResponse } from '../../../src/llm/mock/mock-llm-response.js';
import { call, clerkReply, desk, toolResultOf } from './companion-kit.js';

const llm = scriptedLLM();
let runtime: TestRuntime;
const WARM_MS = 1_500;
beforeAll(async () => {
  runtime = await startTestRuntime('companion_block_park', llm.adapter, { persistentWarmWindowMs: 300, hitlWarmWindowMs: WARM_MS, autoResumeOnSubmit: true });
});
afterAll(async () => {
  await runtime?.shutdown();
});

/** The desk spawns clerk `k` (blocking) in its first step, then answers with text; records the parent's model calls. */
function deskScript(parentCalls: LLMGenerateInput[]): (input: LLMGenerateInput) => MockLLMResponse {
  return (input) => {
    if (input.agentType === 'clerk') return clerkReply(input);
    parentCalls.push(input);
    if (parentCalls.length === 1) return call('p1', 'spawnAgent', { agentType: 'clerk', name: 'k', message: 'ship it?' });
    return { type: 'text', text: `desk ${parentCalls.length}` };
  };
}

/** The call is pending on the companion and owned on the root (written second, before its chunks announce it). */
async function pendingCall(rootSessionId: string, sessionId: string, toolCallId: string): Promise<boolean> {
  const pending = (await runtime.stateStore.loadState(sessionId))?.pendingClientToolCalls?.[toolCallId] !== undefined;
  return pending && (await runtime.stateStore.loadState(rootSessionId))?.clientToolCallOwnership?.[toolCallId] === sessionId;
}

describe('a blocking companion waiting for a human', () => {
  it('within the warm window: the parent waits warm and gets the result in the same run', async () => {
    const parentCalls: LLMGenerateInput[] = [];
    llm.use(deskScript(parentCalls));
    const handle = await runtime.executor.execute(desk, 'go', { sessionId: 'bw-warm' });
    await eventually("the companion's call is pending", () => pendingCall('bw-warm', 'bw-warm-agent-k', 'confirm-bw-warm-agent-k'));
    const submitted = await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'bw-warm', toolCallId: 'confirm-bw-warm-agent-k', result: { yes: 1 } });
    expect(submitted).toMatchObject({ status: 'accepted' });
    expect(await handle.result()).toMatchObject({ status: 'completed', output: 'desk 2' });
    expect(await toolResultOf(runtime.stateStore, 'bw-warm', 'p1')).toEqual({ content: { name: 'k', status: 'completed', output: { confirmed: { yes: 1 } } }, isError: false });
    expect((await runtime.stateStore.listRuns('bw-warm')).runs).toHaveLength(1);
    expect((await runtime.stateStore.listRuns('bw-warm-agent-k')).runs.map((run) => run.status)).toEqual(['completed']);
  });

  it('past the warm window: the parent parks awaiting children; a submission against the root continues both, the result lands in the same parent turn', async () => {
    const parentCalls: LLMGenerateInput[] = [];
    llm.use(deskScript(parentCalls));
    const first = await runtime.executor.execute(desk, 'go', { sessionId: 'bw-park' });
    const parked = await first.result();
    expect(parked).toMatchObject({ status: 'suspended_client_tool', suspended: { toolCallIds: ['confirm-bw-park-agent-k'] } });
    await eventually('the parent parked', async () => (await runtime.stateStore.getCurrentRun('bw-park'))?.status === 'suspended_awaiting_children');
    expect((await runtime.stateStore.loadState('bw-park'))?.suspendedAwaitingChildren).toEqual({ p1: { childSessionId: 'bw-park-agent-k', toolCallId: 'p1', agentType: 'clerk' } });
    await eventually('the companion parked', async () => (await markerOf(runtime.stateStore, 'bw-park-agent-k'))?.endReason === 'suspended');
    // The blocked call has no result yet: the parent's step waits for it.
    await expect(toolResultOf(runtime.stateStore, 'bw-park', 'p1')).rejects.toThrow('no tool result');

    const submitted = await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'bw-park', toolCallId: 'confirm-bw-park-agent-k', result: { yes: 2 } });
    expect(submitted).toMatchObject({ status: 'accepted', next: 'resumed' });
    const resumed = await runtime.executor.getHandle(desk, 'bw-park');
    expect(resumed?.runId).toBe(submitted.runId);
    expect(await resumed?.result()).toMatchObject({ status: 'completed', output: 'desk 2' });

    expect(await toolResultOf(runtime.stateStore, 'bw-park', 'p1')).toEqual({ content: { name: 'k', status: 'completed', output: { confirmed: { yes: 2 } } }, isError: false });
    // Same turn: the parent's second model call already sees the companion's result; nothing is delivered later.
    expect(parentCalls).toHaveLength(2);
    expect(parentCalls[1]?.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'p1' });
    const { messages } = await runtime.stateStore.getMessages('bw-park');
    expect(messages.filter((message) => message.id?.startsWith('companion:'))).toEqual([]);
    // One companion turn parked, one resumed turn completed; the consult was appended once.
    expect((await runtime.stateStore.listRuns('bw-park-agent-k')).runs.map((run) => run.status)).toEqual(['suspended_client_tool', 'completed']);
    const childMessages = (await runtime.stateStore.getMessages('bw-park-agent-k')).messages;
    expect(childMessages.filter((message) => message.role === 'user' && message.content === 'ship it?')).toHaveLength(1);
    expect((await runtime.stateStore.getSubSessionRefs('bw-park'))[0]).toMatchObject({ status: 'completed', completionDelivered: true });
    expect((await runtime.stateStore.loadState('bw-park'))?.suspendedAwaitingChildren).toBeUndefined();
  });

  it('abort of the parked root closes the companion: marker aborted, turn aborted, late answer already_completed, nothing running', async () => {
    llm.use(deskScript([]));
    const first = await runtime.executor.execute(desk, 'go', { sessionId: 'bw-abort' });
    expect(await first.result()).toMatchObject({ status: 'suspended_client_tool' });
    await eventually('the companion parked', async () => (await markerOf(runtime.stateStore, 'bw-abort-agent-k'))?.endReason === 'suspended');
    await first.abort('stop');
    expect((await runtime.stateStore.getCurrentRun('bw-abort'))?.status).toBe('aborted');
    expect(await markerOf(runtime.stateStore, 'bw-abort-agent-k')).toMatchObject({ phase: 'closed', endReason: 'aborted' });
    expect((await runtime.stateStore.getCurrentRun('bw-abort-agent-k'))?.status).toBe('aborted');
    expect((await runtime.stateStore.getSubSessionRefs('bw-abort'))[0]).toMatchObject({ status: 'terminated' });
    const late = await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'bw-abort', toolCallId: 'confirm-bw-abort-agent-k', result: { yes: 3 } });
    expect(late.status).toBe('already_completed');
    const pending = await DBOS.listWorkflows({ status: 'PENDING' });
    expect(pending.filter((workflow) => workflow.workflowID.includes('bw-abort'))).toEqual([]);
  });

  it('an answer that lands after the companion parked but before the parent parked: the submission waits for the park and resumes the root', async () => {
    const parentCalls: LLMGenerateInput[] = [];
    llm.use(deskScript(parentCalls));
    const root = 'bw-window';
    const config = { stateStore: runtime.stateStore, streamManager: runtime.streamManager, llmAdapter: llm.adapter, persistentWarmWindowMs: 300, hitlWarmWindowMs: WARM_MS, autoResumeOnSubmit: true };
    // The parent's park held: after the companion parked, before the root reads parked.
    await withRootParkHeld(config, root, async (executor, parentParking) => {
      await executor.execute(desk, 'go', { sessionId: root });
      await parentParking.entered;
      await eventually('the companion parked', async () => (await markerOf(runtime.stateStore, `${root}-agent-k`))?.endReason === 'suspended');
      expect((await runtime.stateStore.getCurrentRun(root))?.status).toBe('running');
      const submitting = executor.submitToolResult({ kind: 'client-tool-result', sessionId: root, toolCallId: `confirm-${root}-agent-k`, result: { yes: 4 } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      parentParking.open();
      const response = await submitting;
      // Was `continues` (or the companion resumed on its own, its result reaching the parked parent only at the next resume(root)).
      expect(response).toMatchObject({ status: 'accepted', next: 'resumed' });
      const resumed = await executor.getHandle(desk, root);
      expect(resumed?.runId).toBe(response.runId);
      expect(await resumed?.result()).toMatchObject({ status: 'completed', output: 'desk 2' });
      expect(await toolResultOf(runtime.stateStore, root, 'p1')).toEqual({ content: { name: 'k', status: 'completed', output: { confirmed: { yes: 4 } } }, isError: false });
      expect(parentCalls).toHaveLength(2);
    });
  });
});


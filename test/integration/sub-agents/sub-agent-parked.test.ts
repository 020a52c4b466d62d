import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HookManager } from '../../../src/hooks/index.js';
import { withRootParkHeld } from '../run-control/run-control-kit.js';
import type { AgentSuspendedEvent } from '../../../src/hooks/types.js';
import type { SessionStateStore } from '../../../src/store/state-store.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';
import { executions, frontDesk, treeScript } from './hitl-kit.js';

const llm = scriptedLLM();
const suspendedHooks: AgentSuspendedEvent[] = [];
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('sub_agent_hitl_parked', llm.adapter, {
    hitlWarmWindowMs: 300,
    hookManager: new HookManager({ hooks: [{ onAgentSuspended: (event) => void suspendedHooks.push(event) }] }),
  });
});
afterAll(async () => {
  await runtime?.shutdown();
});

async function waitForRunStatus(store: SessionStateStore, sessionId: string, status: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while ((await store.getCurrentRun(sessionId))?.status !== status) {
    if (Date.now() > deadline) throw new Error(`run of ${sessionId} never reached ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('human-in-the-loop inside sub-agents, parked', () => {
  it('parks child and root; a root submission and resume() continue the tree; the gated tool runs once', async () => {
    llm.use(treeScript);
    executions.transfer = 0;
    const handle = await runtime.executor.execute(frontDesk, 'pay', { sessionId: 'park-1' });
    const childCall = 'tx-park-1-sub-desk-1';
    expect(await handle.result()).toMatchObject({ status: 'suspended_client_tool', suspended: { toolCallIds: [childCall] } });
    await waitForRunStatus(runtime.stateStore, 'park-1', 'suspended_awaiting_children'); // only its child waits
    await waitForRunStatus(runtime.stateStore, 'park-1-sub-desk-1', 'suspended_client_tool');
    const parkedRoot = await runtime.stateStore.getCurrentRun('park-1');
    expect((parkedRoot?.metadata as { suspension?: { childCalls?: unknown[] } }).suspension?.childCalls).toHaveLength(1);
    expect((await runtime.stateStore.getSubSessionRefs('park-1'))[0]?.status).toBe('paused_awaiting_client');

    expect((await runtime.executor.submitToolResult({ kind: 'approval-response', sessionId: 'park-1', toolCallId: childCall, approvalId: childCall, approved: true })).status).toBe(
      'accepted',
    );
    const resumed = await runtime.executor.resume(frontDesk, 'park-1');
    expect(await resumed.result()).toMatchObject({ status: 'completed', output: expect.stringContaining('moved') });
    expect(executions.transfer).toBe(1);
    const runs = (await runtime.stateStore.listRuns('park-1')).runs;
    expect(runs.map((run) => run.status)).toEqual(['suspended_awaiting_children', 'completed']);
    expect(suspendedHooks.filter((event) => event.sessionId === 'park-1')).toEqual([
      expect.objectContaining({ reason: 'awaiting_children', toolCallIds: [childCall] }),
    ]);
    expect((await runtime.stateStore.getSubSessionRefs('park-1'))[0]?.status).toBe('completed');
    const results = (await runtime.stateStore.getMessages('park-1')).messages.filter((message) => message.role === 'tool');
    expect(results).toHaveLength(1);
  });

  it('doubly nested: approval in the child answered warm, client tool in the grandchild answered after both parked', async () => {
    llm.use(treeScript);
    executions.transfer = 0;
    const root = 'park-ask-2';
    const child = `${root}-sub-desk-1`;
    const grandchild = `${child}-sub-ask-${child}`;
    const approval = `tx-${child}`;
    const question = `q-${grandchild}`;
    const handle = await runtime.executor.execute(frontDesk, 'pay and ask', { sessionId: root });
    expect(await handle.result()).toMatchObject({ status: 'suspended_client_tool', suspended: { toolCallIds: [approval] } });
    expect((await runtime.executor.submitToolResult({ kind: 'approval-response', sessionId: root, toolCallId: approval, approvalId: approval, approved: true })).status).toBe('accepted');

    await waitForRunStatus(runtime.stateStore, grandchild, 'suspended_client_tool');
    await waitForRunStatus(runtime.stateStore, child, 'suspended_awaiting_children');
    await waitForRunStatus(runtime.stateStore, root, 'suspended_awaiting_children');
    const parked = await (await runtime.executor.getHandle(frontDesk, root))!.result();
    expect(parked).toMatchObject({ status: 'suspended_client_tool', suspended: { toolCallIds: [question] } });
    expect(executions.transfer).toBe(1);

    expect((await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: root, toolCallId: question, result: '1234' })).status).toBe('accepted');
    const resumed = await runtime.executor.resume(frontDesk, root);
    const final = await resumed.result();
    expect(final.status).toBe('completed');
    expect(String(final.output)).toContain('1234');
    expect(executions.transfer).toBe(1);
    expect(await runtime.stateStore.loadState(grandchild)).toMatchObject({ status: 'completed', rootSessionId: root, parentSessionId: child });
  });

  it('an answer that lands after the child parked but before the root parked: the submission waits for the root to park and resumes it', async () => {
    llm.use(treeScript);
    executions.transfer = 0;
    const root = 'park-window';
    const childCall = `tx-${root}-sub-desk-1`;
    const config = { stateStore: runtime.stateStore, streamManager: runtime.streamManager, llmAdapter: llm.adapter, hitlWarmWindowMs: 300, autoResumeOnSubmit: true };
    await withRootParkHeld(config, root, async (executor, rootParking) => {
      const handle = await executor.execute(frontDesk, 'pay', { sessionId: root });
      await rootParking.entered;
      await waitForRunStatus(runtime.stateStore, `${root}-sub-desk-1`, 'suspended_client_tool');
      expect((await runtime.stateStore.getCurrentRun(root))?.status).toBe('running');
      const submitting = executor.submitToolResult({ kind: 'approval-response', sessionId: root, toolCallId: childCall, approvalId: childCall, approved: true });
      await new Promise((resolve) => setTimeout(resolve, 300));
      rootParking.open();
      const response = await submitting;
      // Was `continues`: nothing would have continued the parked child until someone called resume(root).
      expect(response).toMatchObject({ status: 'accepted', next: 'resumed' });
      expect(response.runId).not.toBe(handle.runId);
      const resumed = await executor.getHandle(frontDesk, root);
      expect(resumed?.runId).toBe(response.runId);
      expect(await resumed?.result()).toMatchObject({ status: 'completed', output: expect.stringContaining('moved') });
      expect(executions.transfer).toBe(1);
    });
  });
});


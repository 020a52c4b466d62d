import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';
import { executions, frontDesk, treeScript } from './hitl-kit.js';

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('sub_agent_hitl_warm', llm.adapter, { hitlWarmWindowMs: 30_000 });
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('human-in-the-loop inside a sub-agent (warm)', () => {
  it('suspends the root with the child call, routes the root submission to the child and completes the tree', async () => {
    llm.use(treeScript);
    executions.transfer = 0;
    const handle = await runtime.executor.execute(frontDesk, 'pay', { sessionId: 'warm-1' });
    const waiting = await handle.result();
    const childCall = 'tx-warm-1-sub-desk-1';
    expect(waiting).toMatchObject({ status: 'suspended_client_tool', suspended: { toolCallIds: [childCall] } });
    const root = await runtime.stateStore.loadState('warm-1');
    expect(root?.clientToolCallOwnership).toEqual({ [childCall]: 'warm-1-sub-desk-1' });

    const response = await runtime.executor.submitToolResult({ kind: 'approval-response', sessionId: 'warm-1', toolCallId: childCall, approvalId: childCall, approved: true });
    expect(response.status).toBe('accepted');
    const final = await (await runtime.executor.getHandle(frontDesk, 'warm-1'))!.result();
    expect(final).toMatchObject({ status: 'completed', output: expect.stringContaining('moved') });
    expect(executions.transfer).toBe(1);
    expect((await runtime.executor.submitToolResult({ kind: 'approval-response', sessionId: 'warm-1', toolCallId: childCall, approvalId: childCall, approved: true })).status).toBe(
      'already_completed',
    );
  });
});

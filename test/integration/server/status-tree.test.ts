/**
 * `GET /status` lists the open human calls of the session's whole tree: a sub-agent's approval or client tool, at any
 * depth, appears in the root's answer with the session that owns it, and answering it through
 * `POST /submit-tool-result` with the root's session id completes the run. A real AgentServer (without the console)
 * on a loopback port, real Postgres and DBOS; only the model is scripted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { treeOpenCalls } from '../../../src/server/session-status.js';
import { jsonOf, startServerKit, statusOf, waitForStatus as waitForKitStatus, type ServerKit } from './support/server-kit.js';
import { top, treeTestModel } from './support/tree-agents.js';

const ALICE = 'token-alice';
const status = (sessionId: string, token = ALICE): Promise<any> => statusOf(kit, sessionId, token);
const waitForStatus = (sessionId: string, check: (body: any) => boolean, what: string): Promise<any> => waitForKitStatus(kit, sessionId, check, what);
let kit: ServerKit;

async function start(sessionId: string, input: string): Promise<void> {
  const response = await kit.call('/start', { token: ALICE, body: { agentType: 'top', sessionId, input } });
  expect(response.status).toBe(201);
}
async function submit(body: Record<string, unknown>): Promise<any> {
  const response = await kit.call('/submit-tool-result', { token: ALICE, body });
  expect(response.status).toBe(200);
  return jsonOf(response);
}

beforeAll(async () => {
  kit = await startServerKit('status_tree', { agents: [top] }, { hitlWarmWindowMs: 300_000 }, treeTestModel());
}, 120_000);

afterAll(async () => {
  await kit?.close();
});

describe('GET /status of a root lists the open calls of its whole tree', () => {
  it("a sub-agent's approval two levels down appears with its owner; approving it through the route completes the run", async () => {
    await start('t-deep', 'deep: pay the bill');
    const waiting = await waitForStatus('t-deep', (body) => body.pendingToolCalls?.length === 1, 'waiting for the leaf approval');
    expect(waiting).toMatchObject({ sessionId: 't-deep', rootSessionId: 't-deep', status: 'active', awaitingApproval: true, awaitingClientTool: false, canResume: true, pendingToolCallsTruncated: false });
    const [call] = waiting.pendingToolCalls;
    expect(call).toEqual({
      toolCallId: expect.any(String),
      toolName: 'pay',
      kind: 'approval',
      input: { amount: 7 },
      approvalId: expect.any(String),
      ownerSessionId: expect.stringMatching(/^t-deep-sub-.+-sub-.+$/),
      agentType: 'leaf',
      createdAt: expect.any(Number),
    });
    const [root, owner] = await Promise.all([kit.runtime.stateStore.loadState('t-deep'), kit.runtime.stateStore.loadState(call.ownerSessionId)]);
    expect(Object.keys(root?.pendingClientToolCalls ?? {})).toEqual([]); // not the root's own call
    expect(owner).toMatchObject({ agentType: 'leaf', rootSessionId: 't-deep' });
    expect(owner?.parentSessionId).not.toBe('t-deep'); // a grandchild

    const answered = await submit({ kind: 'approval-response', sessionId: 't-deep', toolCallId: call.toolCallId, approvalId: call.approvalId, approved: true });
    expect(answered).toMatchObject({ status: 'accepted', sessionId: 't-deep', toolCallId: call.toolCallId });
    const done = await waitForStatus('t-deep', (body) => body.status === 'completed', 'completed');
    expect(done.output).toContain('middle got');
    expect(done.output).toContain('leaf got');
    expect(done.output).toContain('paid');
    expect(done).toMatchObject({ awaitingApproval: false, pendingToolCalls: [], canResume: false });
  }, 90_000);

  it("a sub-agent's client tool appears with its owner; the result submitted to the root reaches it and the run completes", async () => {
    await start('t-near', 'near: ask the city');
    const waiting = await waitForStatus('t-near', (body) => body.awaitingClientTool === true, 'waiting for the leaf client tool');
    expect(waiting.pendingToolCalls).toEqual([expect.objectContaining({ toolName: 'ask_user', kind: 'client', ownerSessionId: expect.stringMatching(/^t-near-sub-.+$/), agentType: 'leaf' })]);
    const [call] = waiting.pendingToolCalls;
    expect(call.ownerSessionId.split('-sub-')).toHaveLength(2); // a child of the root (depth 1)
    // A sub-agent's session belongs to its root's principal: its own status lists its own call.
    expect(await status(call.ownerSessionId)).toMatchObject({ sessionId: call.ownerSessionId, pendingToolCalls: [{ toolCallId: call.toolCallId }] });
    expect((await kit.call(`/status?sessionId=${call.ownerSessionId}`, { token: 'token-bob' })).status).toBe(404);

    const answered = await submit({ kind: 'client-tool-result', sessionId: 't-near', toolCallId: call.toolCallId, result: { city: 'Oslo' } });
    expect(answered).toMatchObject({ status: 'accepted', sessionId: 't-near' });
    const done = await waitForStatus('t-near', (body) => body.status === 'completed', 'completed');
    expect(done.output).toContain('Oslo');
    expect(done.awaitingClientTool).toBe(false);
  }, 90_000);

  it('two sub-agents waiting are both listed; the bound lists the first owner only and says so; both answers complete the run', async () => {
    await start('t-both', 'both: pay twice');
    const waiting = await waitForStatus('t-both', (body) => body.pendingToolCalls?.length === 2, 'waiting for two approvals');
    const owners = waiting.pendingToolCalls.map((call: { ownerSessionId: string }) => call.ownerSessionId);
    expect(new Set(owners).size).toBe(2);
    expect(waiting.pendingToolCallsTruncated).toBe(false);
    const root = await kit.runtime.stateStore.loadState('t-both');
    if (root === null) throw new Error('t-both is gone');
    const bounded = await treeOpenCalls(kit.runtime.stateStore, root, 1);
    expect(bounded.truncated).toBe(true);
    expect(bounded.calls).toHaveLength(1);
    expect(owners).toContain(bounded.calls[0]?.ownerSessionId);
    expect((await treeOpenCalls(kit.runtime.stateStore, root, 2)).truncated).toBe(false);

    for (const call of waiting.pendingToolCalls) {
      expect(await submit({ kind: 'approval-response', sessionId: 't-both', toolCallId: call.toolCallId, approvalId: call.approvalId, approved: true })).toMatchObject({ status: 'accepted' });
    }
    const done = await waitForStatus('t-both', (body) => body.status === 'completed', 'completed');
    expect(done.pendingToolCalls).toEqual([]);
  }, 90_000);
});

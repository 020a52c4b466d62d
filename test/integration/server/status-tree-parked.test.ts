/**
 * `GET /status` of a root whose run parked (its warm window over) while sub-agents wait for humans: their calls are
 * still listed with their owners, and answering them through `POST /submit-tool-result` (root session id) resumes
 * the run to completion, also when two sub-agents wait and the answers come one by one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf, startServerKit, waitForStatus as waitForKitStatus, type ServerKit } from './support/server-kit.js';
import { top, treeTestModel } from './support/tree-agents.js';

const ALICE = 'token-alice';
const waitForStatus = (sessionId: string, check: (body: any) => boolean, what: string): Promise<any> => waitForKitStatus(kit, sessionId, check, what);
const PARKED = ['suspended_client_tool', 'suspended_awaiting_children'];
let kit: ServerKit;

async function approve(sessionId: string, call: { toolCallId: string; approvalId: string }): Promise<any> {
  const response = await kit.call('/submit-tool-result', { token: ALICE, body: { kind: 'approval-response', sessionId, toolCallId: call.toolCallId, approvalId: call.approvalId, approved: true } });
  expect(response.status).toBe(200);
  return jsonOf(response);
}

beforeAll(async () => {
  kit = await startServerKit('status_tree_parked', { agents: [top] }, { hitlWarmWindowMs: 200 }, treeTestModel());
}, 120_000);

afterAll(async () => {
  await kit?.close();
});

describe('GET /status of a parked root lists its sub-agents open calls', () => {
  it("a parked run's grandchild approval is listed; approving it through the route resumes the run to completion", async () => {
    expect((await kit.call('/start', { token: ALICE, body: { agentType: 'top', sessionId: 'p-deep', input: 'deep: pay the bill' } })).status).toBe(201);
    const parked = await waitForStatus('p-deep', (body) => PARKED.includes(body.run?.status) && body.pendingToolCalls?.length === 1, 'parked, waiting for the leaf');
    expect(parked).toMatchObject({ awaitingApproval: true, canResume: true, pendingToolCalls: [{ toolName: 'pay', agentType: 'leaf' }] });
    const answered = await approve('p-deep', parked.pendingToolCalls[0]);
    expect(answered).toMatchObject({ status: 'accepted', run: { sessionId: 'p-deep', runId: expect.any(String) } });
    expect(answered.run.runId).not.toBe(parked.run.runId);
    const done = await waitForStatus('p-deep', (body) => body.status === 'completed', 'completed');
    expect(done.output).toContain('leaf got');
  }, 90_000);

  it('two parked sub-agents: the first answer leaves the other listed, the second completes the run', async () => {
    expect((await kit.call('/start', { token: ALICE, body: { agentType: 'top', sessionId: 'p-both', input: 'both: pay twice' } })).status).toBe(201);
    const parked = await waitForStatus('p-both', (body) => PARKED.includes(body.run?.status) && body.pendingToolCalls?.length === 2, 'parked, waiting for two approvals');
    const [first, second] = parked.pendingToolCalls;
    const firstAnswer = await approve('p-both', first);
    // The other sub-agent still waits: no run is started for nothing (the parked run resumes after the last answer).
    expect(firstAnswer).toMatchObject({ status: 'accepted' });
    expect(firstAnswer.run ?? null).toBeNull();
    const between = await waitForStatus('p-both', (body) => body.pendingToolCalls?.length === 1 && body.run?.status !== 'running', 'waiting for the second approval');
    expect(between.pendingToolCalls[0]).toMatchObject({ toolCallId: second.toolCallId, ownerSessionId: second.ownerSessionId });
    expect(between.awaitingApproval).toBe(true);
    expect((await approve('p-both', second)).status).toBe('accepted');
    const done = await waitForStatus('p-both', (body) => body.status === 'completed', 'completed');
    expect(done.pendingToolCalls).toEqual([]);
  }, 90_000);
});

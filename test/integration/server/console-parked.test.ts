/**
 * Console answers to runs that parked (their workflow ended while waiting for humans; warm window 200 ms): the
 * answer that leaves nothing open resumes the parked root and names the started run, for the root's own call and
 * for a sub-agent's. Against a real AgentServer and Postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_SAID } from './support/console-agents.js';
import { ALICE, startConsoleKit, startSession, waitForPage, waitForStatus, type ConsoleKit } from './support/console-kit.js';

let kit: ConsoleKit;
beforeAll(async () => {
  kit = await startConsoleKit('console_parked', 200);
});
afterAll(async () => {
  await kit?.close();
});

const act = (sessionId: string, action: string, body: unknown = {}) => kit.call(`/console/api/sessions/${sessionId}/${action}`, ALICE, body);
const parked = (page: any): boolean => page.pendingCalls?.length === 1 && page.session.currentRun?.status?.startsWith('suspended_') === true;

describe('answers to parked runs', () => {
  it('approve resumes a parked run: the answer names the new run, which completes', async () => {
    await startSession(kit, 'parked-approve', 'approve: five');
    const page = await waitForPage(kit, 'parked-approve', parked, 'the run parked');
    expect(page.session).toMatchObject({ status: 'active', awaitingHuman: true, canResume: true, currentRun: { status: 'suspended_client_tool' } });
    const answer = await act('parked-approve', 'approve', { toolCallId: page.pendingCalls[0].toolCallId });
    expect(answer.body.submission).toEqual({ status: 'accepted', next: 'needs_resume' });
    expect(answer.body.startedRun).toMatchObject({ sessionId: 'parked-approve', streamId: 'parked-approve' });
    expect(answer.body.session.currentRun.runId).toBe(answer.body.startedRun.runId);
    const done = await waitForStatus(kit, 'parked-approve');
    expect(done.history.steps.at(-1).text.text).toBe(`${TOOL_SAID}${JSON.stringify({ paid: 5 })}`);
    expect(done.runs.map((run: any) => run.status)).toEqual(['suspended_client_tool', 'completed']);
  });

  it("a sub-agent's parked approval, answered on the root's page, resumes the tree", async () => {
    await startSession(kit, 'parked-child', 'delegate: pay it');
    const page = await waitForPage(kit, 'parked-child', parked, 'the tree parked');
    const [call] = page.pendingCalls;
    expect(call.ownerSessionId).toBe(page.tree.children[0].sessionId);
    const answer = await act('parked-child', 'approve', { toolCallId: call.toolCallId });
    expect(answer.body.submission.status).toBe('accepted');
    expect(answer.body.startedRun.sessionId).toBe('parked-child');
    const done = await waitForStatus(kit, 'parked-child');
    expect(done.history.steps.at(-1).text.text).toBe(`${TOOL_SAID}${JSON.stringify({ answer: 'helped after paying' })}`);
  });
});

/**
 * The console's actions (`POST {path}/api/sessions/:id/{action}`) against a real AgentServer and Postgres, each
 * through the executor's API and reflected in its answer at once: approve, deny with a reason (the model reads it),
 * submit, an approval of a sub-agent's call from the root's page, interrupt then resume, abort, retry, branch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_SAID } from './support/console-agents.js';
import { ALICE, BOB, sessionPage, startConsoleKit, startSession, waitForOpenCalls, waitForStatus, type ConsoleKit } from './support/console-kit.js';

let kit: ConsoleKit;
beforeAll(async () => {
  kit = await startConsoleKit('console_actions');
});
afterAll(async () => {
  await kit?.close();
});

const act = (sessionId: string, action: string, body: unknown = {}, token = ALICE) => kit.call(`/console/api/sessions/${sessionId}/${action}`, token, body);
const lastText = (page: any): string => page.history.steps.at(-1).text.text;

describe('answering humans', () => {
  it('approve: the answer shows the call taken, and the waiting run completes', async () => {
    await startSession(kit, 'act-approve', 'approve: five');
    const [call] = (await waitForOpenCalls(kit, 'act-approve')).pendingCalls;
    expect(call).toMatchObject({ toolName: 'pay', kind: 'approval' });
    const answer = await act('act-approve', 'approve', { toolCallId: call.toolCallId });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ action: 'approve', sessionId: 'act-approve', submission: { status: 'accepted', next: 'continues' } });
    expect(answer.body.session).toMatchObject({ sessionId: 'act-approve', openCallCount: 0, awaitingHuman: false });
    const page = await waitForStatus(kit, 'act-approve');
    expect(lastText(page)).toBe(`${TOOL_SAID}${JSON.stringify({ paid: 5 })}`);
    expect((await act('act-approve', 'approve', { toolCallId: call.toolCallId })).body.submission.status).toBe('already_completed');
  });

  it('deny with a reason: the model reads the denial and its reason', async () => {
    await startSession(kit, 'act-deny', 'approve: five');
    const [call] = (await waitForOpenCalls(kit, 'act-deny')).pendingCalls;
    const answer = await act('act-deny', 'deny', { toolCallId: call.toolCallId, reason: 'Too expensive today' });
    expect(answer.body.submission.status).toBe('accepted');
    const page = await waitForStatus(kit, 'act-deny');
    expect(lastText(page)).toBe(`${TOOL_SAID}${JSON.stringify('Tool call was not approved by the user. Reason: Too expensive today')}`);
    expect(page.history.steps[1].toolCalls[0]).toMatchObject({ toolName: 'pay', status: 'failed' });
  });

  it('submit: a client tool result continues the run', async () => {
    await startSession(kit, 'act-submit', 'client: where?');
    const [call] = (await waitForOpenCalls(kit, 'act-submit')).pendingCalls;
    const answer = await act('act-submit', 'submit', { toolCallId: call.toolCallId, result: { city: 'Oslo' } });
    expect(answer.body.submission.status).toBe('accepted');
    expect(lastText(await waitForStatus(kit, 'act-submit'))).toBe(`${TOOL_SAID}${JSON.stringify({ city: 'Oslo' })}`);
  });

  it("approve a sub-agent's call from the root's page: the child, then the root complete", async () => {
    await startSession(kit, 'act-child', 'delegate: pay the bill');
    const root = await waitForOpenCalls(kit, 'act-child');
    const [call] = root.pendingCalls;
    const childId = root.tree.children[0].sessionId;
    expect(call).toMatchObject({ toolName: 'pay', kind: 'approval', ownerSessionId: childId, agentType: 'helper' });
    expect(root.session).toMatchObject({ awaitingHuman: true, openCallCount: 1 });
    const answer = await act('act-child', 'approve', { toolCallId: call.toolCallId });
    expect(answer.body.submission.status).toBe('accepted');
    const page = await waitForStatus(kit, 'act-child');
    expect(lastText(page)).toBe(`${TOOL_SAID}${JSON.stringify({ answer: 'helped after paying' })}`);
    expect(page.tree.children[0]).toMatchObject({ refStatus: 'completed', status: 'completed' });
  });

  it('refuses a malformed answer with a typed 400 that does not echo it', async () => {
    await startSession(kit, 'act-invalid', 'hello');
    for (const [action, body] of [['approve', {}], ['deny', { toolCallId: 'c', reason: `SECRET-123${'x'.repeat(600)}` }], ['submit', { toolCallId: 7 }]] as const) {
      const answer = await act('act-invalid', action, body);
      expect(answer.status, action).toBe(400);
      expect(answer.body.error.code).toBe('INVALID_REQUEST');
      expect(JSON.stringify(answer.body)).not.toContain('SECRET-123');
    }
    expect((await act('act-invalid', 'approve', { toolCallId: 'no-such-call' })).body.submission.status).toBe('unknown_tool_call');
  });
});

describe('run control', () => {
  it('interrupt answers the interrupted session; resume answers the new run, which completes', async () => {
    await startSession(kit, 'act-interrupt', 'slow500: work');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const interrupted = await act('act-interrupt', 'interrupt', { reason: 'operator stop' });
    expect(interrupted.status).toBe(200);
    expect(interrupted.body.session).toMatchObject({ status: 'interrupted', canResume: true, currentRun: { status: 'interrupted' }, interrupt: { reason: 'operator stop' } });
    expect((await act('act-interrupt', 'interrupt')).body.error.code).toBe('NO_ACTIVE_RUN');
    const resumed = await act('act-interrupt', 'resume');
    expect(resumed.status).toBe(200);
    const run = resumed.body.startedRun;
    expect(run).toMatchObject({ sessionId: 'act-interrupt', streamId: 'act-interrupt' });
    expect(resumed.body.session).toMatchObject({ status: 'active', currentRun: { runId: run.runId } });
    const page = await waitForStatus(kit, 'act-interrupt');
    expect(page.runs.map((entry: any) => entry.status)).toEqual(['interrupted', 'completed']);
    expect(page.runs[1]).toMatchObject({ runId: run.runId, previousRunId: page.runs[0].runId });
    expect(page.runs[0].nextRunId).toBe(run.runId);
  });

  it('abort answers the aborted session; it cannot be resumed', async () => {
    await startSession(kit, 'act-abort', 'slow20000: work');
    const aborted = await act('act-abort', 'abort', { reason: 'runaway' });
    expect(aborted.status).toBe(200);
    expect(aborted.body.session).toMatchObject({ status: 'failed', failure: { reason: 'aborted' }, currentRun: { status: 'aborted' }, canResume: false, canRetry: true });
    const resume = await act('act-abort', 'resume');
    expect(resume.status).toBe(409);
    expect(resume.body.error.code).toBe('NOT_RESUMABLE');
  });

  it('retry answers the new run of a failed session, which completes', async () => {
    await startSession(kit, 'act-retry', 'fail: once');
    const failed = await waitForStatus(kit, 'act-retry', 'failed');
    expect(failed.session).toMatchObject({ canRetry: true, canResume: false });
    expect(failed.session.failure.error).toMatch(/^LLM_CALL_FAILED: /);
    const retried = await act('act-retry', 'retry');
    expect(retried.status).toBe(200);
    expect(retried.body.session).toMatchObject({ status: 'active', canRetry: false });
    const page = await waitForStatus(kit, 'act-retry');
    expect(page.runs.map((entry: any) => entry.status)).toEqual(['failed', 'completed']);
    expect(page.runs[1]).toMatchObject({ runId: retried.body.startedRun.runId, previousRunId: page.runs[0].runId });
    expect(lastText(page)).toBe('echo fail: once');
    expect((await act('act-retry', 'retry')).body.error.code).toBe('NOT_RESUMABLE');
  });

  it('branch: a new session of the principal from a checkpoint, with the history up to it and the new message', async () => {
    await startSession(kit, 'act-source', 'client: first');
    const [call] = (await waitForOpenCalls(kit, 'act-source')).pendingCalls;
    await act('act-source', 'submit', { toolCallId: call.toolCallId, result: 'Lisbon' });
    const source = await waitForStatus(kit, 'act-source');
    const checkpoint = source.checkpoints.find((entry: any) => entry.messageCount === 3); // user, call, result
    expect(checkpoint).toBeDefined();
    const branched = await act('act-source', 'branch', { checkpointId: checkpoint.id, message: 'hello branch', sessionId: 'act-branch' });
    expect(branched.status).toBe(201);
    expect(branched.body).toMatchObject({ action: 'branch', sessionId: 'act-source', startedRun: { sessionId: 'act-branch', streamId: 'act-branch' } });
    expect(branched.body.session).toMatchObject({ sessionId: 'act-branch', status: 'active' });
    const page = await waitForStatus(kit, 'act-branch');
    expect(page.history.totalMessages).toBe(5);
    expect(page.history.steps.at(-2).userText.text).toBe('hello branch');
    expect(lastText(page)).toBe('echo hello branch');
    expect((await sessionPage(kit, 'act-source')).body.history.totalMessages).toBe(source.history.totalMessages);
    expect((await kit.call('/console/api/sessions', ALICE)).body.sessions.map((row: any) => row.sessionId)).toContain('act-branch');
    expect((await sessionPage(kit, 'act-branch', BOB)).status).toBe(404);

    const unknown = await act('act-source', 'branch', { checkpointId: 'run-x:1', message: 'nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('CHECKPOINT_NOT_FOUND');
    const again = await act('act-source', 'branch', { message: 'again', sessionId: 'act-branch' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('SESSION_ALREADY_EXISTS');
    const generated = await act('act-source', 'branch', { message: 'whole history' });
    expect(generated.body.startedRun.sessionId).toMatch(/^branch-/);
    expect((await waitForStatus(kit, generated.body.startedRun.sessionId)).history.totalMessages).toBe(source.history.totalMessages + 2);
  });
});

/**
 * The operator CLI in direct mode (DATABASE_URL) as a child process, against a real Postgres and a DBOS runtime in
 * this process (executor id `local`) that runs the sessions: every command, its `--json` shape and its exit codes;
 * and a CLI command that launches DBOS takes over none of this process's pending workflows.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionStatus } from '../../../src/types/session.js';
import { waitFor } from '../../support/free-port.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import type { LLMAdapter } from '../../../src/llm/adapter.js';
import { consoleTestModel, desk } from '../server/support/console-agents.js';
import { assistant, serverTestModel } from '../server/support/server-agents.js';
import { runCliProcess, type CliRun } from './support/cli-process.js';

let runtime: TestRuntime;
const cli = (...args: string[]): Promise<CliRun> => runCliProcess(args, { DATABASE_URL: runtime.database.url });

async function start(sessionId: string, input: string): Promise<void> {
  await runtime.executor.execute(assistant, input, { sessionId });
}
/** `assistant`'s script, and `desk`'s with its sub-agent `helper` (who asks to pay: a human wait below the root). */
function bothModels(): LLMAdapter {
  const [server, console] = [serverTestModel(), consoleTestModel()];
  return { generateStep: (input, callbacks) => (input.agentType === 'assistant' ? server : console).generateStep(input, callbacks) };
}
async function openCalls(sessionId: string): Promise<Array<{ toolCallId: string; kind: string }>> {
  const state = await runtime.stateStore.loadState(sessionId);
  return Object.values(state?.pendingClientToolCalls ?? {}).filter((call) => call.submittedAt === undefined);
}
async function waitForCall(sessionId: string): Promise<string> {
  await waitFor(async () => (await openCalls(sessionId)).length > 0, 20_000, `a pending call of ${sessionId}`);
  return (await openCalls(sessionId))[0]!.toolCallId;
}
async function waitForStatus(sessionId: string, status: SessionStatus): Promise<void> {
  await waitFor(async () => (await runtime.stateStore.loadState(sessionId))?.status === status, 30_000, `${sessionId} ${status}`);
}
async function waitForRunning(sessionId: string): Promise<void> {
  await waitFor(async () => (await runtime.stateStore.getCurrentRun(sessionId))?.status === 'running', 20_000, `${sessionId} running`);
}

beforeAll(async () => {
  runtime = await startTestRuntime('cli_direct', bothModels(), { hitlWarmWindowMs: 300_000 }); // warm all along: answers continue in place
  await start('done-1', 'hello there');
  await runtime.executor.execute(desk, 'delegate: pay for it', { sessionId: 'tree-1' });
  await waitFor(async () => (await runtime.stateStore.loadState('tree-1'))?.clientToolCallOwnership !== undefined, 20_000, "tree-1's sub-agent waiting");
  await Promise.all(['approve-1', 'approve-2', 'deny-1'].map((id) => start(id, 'approve: pay')));
  await start('client-1', 'client: which city');
  await waitForStatus('done-1', 'completed');
  await Promise.all(['approve-1', 'approve-2', 'deny-1', 'client-1'].map(waitForCall));
}, 120_000);

afterAll(async () => {
  await runtime?.shutdown();
});

describe('sessions list|show|pending', () => {
  it('lists sessions as a table and as the store page, with filters and paging', async () => {
    const [table, completed, waiting, first, badStatus] = await Promise.all([
      cli('sessions', 'list'),
      cli('sessions', 'list', '--status', 'completed', '--json'),
      cli('sessions', 'list', '--awaiting-human', '--agent', 'assistant', '--since', '1h', '--json'),
      cli('--json', 'sessions', 'list', '--limit', '1'),
      cli('sessions', 'list', '--status', 'done'),
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^SESSION\s+AGENT\s+STATUS\s+HUMAN\s+STEPS\s+UPDATED\s+USER/);
    expect(table.stdout).toMatch(/approve-1\s+assistant\s+active\s+waiting/);
    expect(table.stdout).toMatch(/\d+ of \d+ session\(s\)/);
    expect(completed.code).toBe(0);
    expect(completed.json()).toEqual({ sessions: [expect.objectContaining({ sessionId: 'done-1', agentType: 'assistant', status: 'completed', awaitingHuman: false, stepCount: 1 })], total: 1 });
    expect(waiting.json().sessions.map((row: { sessionId: string }) => row.sessionId).sort()).toEqual(['approve-1', 'approve-2', 'client-1', 'deny-1']);
    const page = first.json();
    expect(page.sessions).toHaveLength(1);
    expect(page.total).toBe(6);
    expect(typeof page.nextCursor).toBe('string');
    const second = (await cli('sessions', 'list', '--limit', '1', '--cursor', page.nextCursor, '--json')).json();
    expect(second.sessions[0].sessionId).not.toBe(page.sessions[0].sessionId);
    expect(badStatus.code).toBe(2);
    expect(badStatus.stderr).toContain('CLI_USAGE');
  }, 120_000);

  it('shows a session with its runs and last messages, and 5 for a missing one', async () => {
    const [text, json, missing] = await Promise.all([cli('sessions', 'show', 'done-1'), cli('sessions', 'show', 'done-1', '--messages', '2', '--json'), cli('sessions', 'show', 'nope-1')]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/Session\s+done-1/);
    expect(text.stdout).toContain('Runs');
    expect(text.stdout).toMatch(/1\s+\S+\s+completed/);
    const detail = json.json();
    expect(detail).toMatchObject({ session: { sessionId: 'done-1', agentType: 'assistant', status: 'completed', awaitingHuman: false }, currentRun: { status: 'completed', turn: 1 }, pendingCalls: [], subSessions: [] });
    expect(detail.runs).toHaveLength(1);
    expect(detail.messages).toEqual([expect.objectContaining({ role: 'user', content: 'hello there' }), expect.objectContaining({ role: 'assistant', content: 'echo hello there' })]);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain('SESSION_NOT_FOUND');
  }, 60_000);

  it('lists the calls waiting for a human: every session (sub-agents too, addressed to the root), or one', async () => {
    const [all, one, tree] = await Promise.all([cli('sessions', 'pending', '--json'), cli('sessions', 'pending', 'client-1'), cli('sessions', 'pending', 'tree-1', '--json')]);
    const calls = all.json().calls as Array<{ sessionId: string; toolName: string; kind: string; input: unknown; approvalId?: string }>;
    expect(calls.map((call) => `${call.sessionId}:${call.toolName}:${call.kind}`).sort()).toEqual(['approve-1:pay:approval', 'approve-2:pay:approval', 'client-1:ask_user:client', 'deny-1:pay:approval', 'tree-1:pay:approval']);
    expect(tree.json().calls).toEqual([expect.objectContaining({ sessionId: 'tree-1', ownerSessionId: expect.stringMatching(/^tree-1-sub-/), toolName: 'pay', input: { amount: 7 } })]);
    expect(calls.find((call) => call.sessionId === 'approve-1')).toMatchObject({ input: { amount: 5 }, approvalId: expect.any(String) });
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/client-1\s+\S+\s+ask_user\s+client\s+\{"question":"Which city\?"\}/);
  }, 60_000);
});

describe('approve|deny|submit', () => {
  it('approves the approvals of two sessions with a progress bar; the runs complete; a second answer is refused', async () => {
    const run = await cli('approve', 'approve-1', 'approve-2', '--reason', 'fine', '--progress', '--json');
    expect(run.code).toBe(0);
    expect(run.json()).toEqual({
      results: [expect.objectContaining({ sessionId: 'approve-1', status: 'accepted', next: 'continues' }), expect.objectContaining({ sessionId: 'approve-2', status: 'accepted', next: 'continues' })],
    });
    expect(run.stderr).toContain('] 1/2 approve approve-1/');
    expect(run.stderr).toContain('] 2/2 approve approve-2/');
    await Promise.all([waitForStatus('approve-1', 'completed'), waitForStatus('approve-2', 'completed')]);
    const callId = (await runtime.stateStore.getMessages('approve-1')).messages.find((message) => message.role === 'tool')?.toolCallId ?? '';
    const [nothingOpen, again] = await Promise.all([cli('approve', 'approve-1'), cli('approve', 'approve-1', '--call', callId, '--json')]);
    expect(nothingOpen.code).toBe(6);
    expect(nothingOpen.stdout).toContain('CLI_NO_OPEN_CALLS');
    expect(again.code).toBe(6);
    expect(again.json().results[0]).toMatchObject({ toolCallId: callId, status: 'already_completed', error: { code: 'CLI_ALREADY_ANSWERED' } });
  }, 120_000);

  it("approves a sub-agent's approval through its root; the tree completes", async () => {
    const run = await cli('approve', 'tree-1', '--json');
    expect(run.code).toBe(0);
    expect(run.json().results).toEqual([expect.objectContaining({ sessionId: 'tree-1', status: 'accepted' })]);
    await waitForStatus('tree-1', 'completed');
  }, 60_000);

  it('denies with a reason, and the run completes', async () => {
    const run = await cli('deny', 'deny-1', '--tool', 'pay', '--reason', 'Over budget');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/deny-1\s+\S+\s+accepted\s+continues/);
    await waitForStatus('deny-1', 'completed');
  }, 60_000);

  it('submits a client tool result once; a malformed or unknown answer is refused', async () => {
    const callId = (await openCalls('client-1'))[0]!.toolCallId;
    const [badJson, unknown] = await Promise.all([cli('submit', 'client-1', callId, '--result', '{"city": RESULT-PAYLOAD'), cli('submit', 'client-1', 'call-x', '--result', '1', '--json')]);
    expect(badJson.code).toBe(2);
    expect(`${badJson.stdout}${badJson.stderr}`).not.toContain('RESULT-PAYLOAD');
    expect(unknown.code).toBe(5);
    expect(unknown.json().results[0]).toMatchObject({ status: 'unknown_tool_call', error: { code: 'CLI_CALL_NOT_FOUND' } });
    const run = await cli('submit', 'client-1', callId, '--result-file', '-', '--json');
    expect(run.code).toBe(2); // empty stdin is not JSON
    const accepted = await runCliProcess(['submit', 'client-1', callId, '--result-file', '-', '--json'], { DATABASE_URL: runtime.database.url }, { stdin: '{"city":"Oslo"}' });
    expect(accepted.code).toBe(0);
    expect(accepted.json()).toEqual({ results: [{ sessionId: 'client-1', toolCallId: callId, status: 'accepted', next: 'continues' }] });
    await waitForStatus('client-1', 'completed');
    const again = await cli('submit', 'client-1', callId, '--error', 'late');
    expect(again.code).toBe(6);
  }, 120_000);
});

describe('interrupt|abort|resume|retry', () => {
  it('interrupts a running session; a session with no running run is refused with 6', async () => {
    await start('slow-int', 'slow12000: wait');
    await waitForRunning('slow-int');
    const [run, idle] = await Promise.all([cli('interrupt', 'slow-int', '--reason', 'operator', '--json'), cli('interrupt', 'done-1')]);
    expect(run.code).toBe(0);
    expect(run.json()).toEqual({ results: [{ sessionId: 'slow-int', status: 'interrupt_requested' }] });
    await waitForStatus('slow-int', 'interrupted');
    expect(idle.code).toBe(6);
    expect(idle.stdout).toContain('NO_ACTIVE_RUN');
  }, 90_000);

  it('aborts several sessions with a progress bar; a bulk with failures reports each and exits with the first', async () => {
    await Promise.all(['slow-a', 'slow-b'].map((id) => start(id, 'slow20000: wait')));
    await Promise.all(['slow-a', 'slow-b'].map(waitForRunning));
    const run = await cli('abort', 'slow-a', 'slow-b', '--reason', 'stuck', '--progress');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/slow-a\s+aborted/);
    expect(run.stderr).toContain('] 2/2 abort slow-b');
    for (const id of ['slow-a', 'slow-b']) expect(await runtime.stateStore.loadState(id)).toMatchObject({ status: 'failed', failureReason: 'aborted' });
    const mixed = await cli('abort', 'slow-a', 'nope-2', '--json');
    expect(mixed.code).toBe(6);
    expect(mixed.json()).toEqual({ results: [{ sessionId: 'slow-a', error: { code: 'NO_ACTIVE_RUN', message: expect.any(String) } }, { sessionId: 'nope-2', error: { code: 'SESSION_NOT_FOUND', message: expect.any(String) } }] });
  }, 90_000);

  it('refuses resume and retry in direct mode with 4 (they run the agent)', async () => {
    const [resume, retry] = await Promise.all([cli('resume', 'slow-int'), cli('retry', 'slow-a', '--json')]);
    expect(resume.code).toBe(4);
    expect(resume.stderr).toContain('CLI_UNSUPPORTED_IN_MODE');
    expect(resume.stderr).toContain('--server');
    expect(retry.code).toBe(4);
    expect(JSON.parse(retry.stderr).error.code).toBe('CLI_UNSUPPORTED_IN_MODE');
  }, 60_000);
});

describe('DBOS in the CLI process', () => {
  it('launches under its own executor id and takes over none of the pending workflows of executor local', async () => {
    await start('guard-1', 'slow20000: wait');
    await waitForRunning('guard-1');
    const workflowId = (await runtime.stateStore.getCurrentRun('guard-1'))!.workflowId!;
    const before = await DBOS.getWorkflowStatus(workflowId);
    expect(before).toMatchObject({ status: 'PENDING', executorId: 'local' });
    // DBOS__VMID=local would make a default launch recover executor local's workflows; the CLI sets its own id.
    const run = await runCliProcess(['--verbose', 'prune', '--older-than', '3650d'], { DATABASE_URL: runtime.database.url, DBOS__VMID: 'local' });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/executor id helix-cli-[0-9a-f-]{36}/);
    const after = await DBOS.getWorkflowStatus(workflowId);
    expect(after).toMatchObject({ status: 'PENDING', executorId: 'local', recoveryAttempts: before?.recoveryAttempts });
    const strays = (await DBOS.listWorkflows({ status: 'PENDING' })).filter((workflow) => workflow.executorId !== 'local');
    expect(strays).toEqual([]);
    await (await runtime.executor.getHandle(assistant, 'guard-1'))?.abort('test over');
  }, 90_000);
});

describe('prune', () => {
  it('counts with --dry-run, then prunes every finished session with a progress bar', async () => {
    const dry = (await cli('prune', '--older-than', '0s', '--dry-run', '--json')).json();
    expect(dry.dryRun).toBe(true);
    expect([...dry.sessionIds].sort()).toEqual(['approve-1', 'approve-2', 'client-1', 'deny-1', 'done-1', 'guard-1', 'slow-a', 'slow-b', 'tree-1']);
    const doneWorkflow = (await runtime.stateStore.getCurrentRun('done-1'))!.workflowId!;
    const run = await cli('prune', '--older-than', '0s', '--batch-size', '3', '--progress', '--json');
    expect(run.code).toBe(0);
    expect(run.json()).toEqual({ sessions: 9, chunksDeleted: expect.any(Number), workflowsDeleted: expect.any(Number) });
    expect(run.json().workflowsDeleted).toBeGreaterThanOrEqual(9);
    expect(run.stderr).toContain('] 3/9 pruned');
    expect(run.stderr).toContain('] 9/9 pruned');
    expect(await DBOS.getWorkflowStatus(doneWorkflow)).toBeNull();
    const again = await cli('prune', '--older-than', '0s');
    expect(again.stdout.trim()).toBe('Pruned 0 session(s): 0 stream chunk(s) and 0 DBOS workflow record(s) deleted.');
  }, 120_000);
});

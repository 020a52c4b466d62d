/**
 * The operator CLI in server mode (`--server URL --token T`, or HELIX_SERVER_URL / HELIX_TOKEN) as a child process,
 * against a real AgentServer on a loopback port with its console API on: each command through the executor routes
 * or the console API as the token's principal, `--json` shapes, exit codes, refusals of what the server cannot serve,
 * and no token in any output. A server without the console: cli-server-bare.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, waitFor } from '../../support/free-port.js';
import { jsonOf, startServerKit, type ServerKit } from '../server/support/server-kit.js';
import { runCliProcess, type CliRun } from './support/cli-process.js';

const ALICE = 'token-alice';
const BOB = 'token-bob';
let kit: ServerKit;
const asAlice = (...args: string[]): Promise<CliRun> => runCliProcess(['--server', kit.baseUrl, '--token', ALICE, ...args]);

async function start(sessionId: string, input: string): Promise<void> {
  const response = await kit.call('/start', { token: ALICE, body: { agentType: 'assistant', sessionId, input } });
  expect(response.status).toBe(201);
}
async function status(sessionId: string): Promise<any> {
  return jsonOf(await kit.call(`/status?sessionId=${sessionId}`, { token: ALICE }));
}
async function waitForStatus(sessionId: string, check: (body: any) => boolean, what: string): Promise<void> {
  await waitFor(async () => check(await status(sessionId)), 30_000, `${sessionId} ${what}`);
}

beforeAll(async () => {
  kit = await startServerKit('cli_server', { console: {} }, { hitlWarmWindowMs: 300_000 }); // warm all along: answers continue in place
  await Promise.all([start('s-approve', 'approve: pay'), start('s-client', 'client: where'), start('s-done', 'hi')]);
  await waitForStatus('s-approve', (body) => body.awaitingApproval === true, 'awaiting approval');
  await waitForStatus('s-client', (body) => body.awaitingClientTool === true, 'awaiting a client tool');
  await waitForStatus('s-done', (body) => body.status === 'completed', 'completed');
}, 120_000);

afterAll(async () => {
  await kit?.close();
});

describe('server mode: reads', () => {
  it("shows the token principal's session, from flags or the environment; another principal gets 5", async () => {
    const [text, json, fromEnv, bob] = await Promise.all([
      asAlice('sessions', 'show', 's-approve'),
      asAlice('sessions', 'show', 's-done', '--json'),
      runCliProcess(['sessions', 'pending', 's-approve', '--json'], { HELIX_SERVER_URL: kit.baseUrl, HELIX_TOKEN: ALICE }),
      runCliProcess(['--server', kit.baseUrl, '--token', BOB, 'sessions', 'show', 's-approve']),
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/Session\s+s-approve/);
    expect(text.stdout).toMatch(/s-approve\s+\S+\s+pay\s+approval\s+\{"amount":5\}/);
    expect(json.json()).toEqual({
      session: { sessionId: 's-done', agentType: 'assistant', status: 'completed', stepCount: 1, awaitingHuman: false, output: 'echo hi' },
      currentRun: { runId: expect.any(String), status: 'completed', turn: 1, stepCount: 1, completionReason: expect.any(String) },
      pendingCalls: [],
    });
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.json()).toEqual({ calls: [{ sessionId: 's-approve', toolCallId: expect.any(String), toolName: 'pay', kind: 'approval', input: { amount: 5 }, approvalId: expect.any(String), ownerSessionId: 's-approve', createdAt: expect.any(Number) }] });
    expect(bob.code).toBe(5);
    expect(bob.stderr).toContain('SESSION_NOT_FOUND');
  }, 90_000);

  it('refuses with 7 a token the server does not accept, and an unreachable server, without printing the token', async () => {
    const port = await freePort();
    const [refused, unreachable, credentialsInUrl] = await Promise.all([
      runCliProcess(['--server', kit.baseUrl, '--token', 'TOKEN-MALLORY-SECRET', 'sessions', 'show', 's-done', '--verbose']),
      runCliProcess(['sessions', 'show', 's-done', '--verbose'], { HELIX_SERVER_URL: `http://127.0.0.1:${port}`, HELIX_TOKEN: 'TOKEN-SECRET' }),
      runCliProcess(['sessions', 'show', 's-done'], { HELIX_SERVER_URL: `http://user:URL-SECRET@127.0.0.1:${port}` }),
    ]);
    expect(refused.code).toBe(7);
    expect(refused.stderr).toContain('UNAUTHENTICATED');
    expect(`${refused.stdout}${refused.stderr}`).not.toContain('TOKEN-MALLORY-SECRET');
    expect(unreachable.code).toBe(7);
    expect(unreachable.stderr).toContain('CLI_CONNECTION_FAILED');
    expect(unreachable.stderr).toContain('ECONNREFUSED');
    expect(`${unreachable.stdout}${unreachable.stderr}`).not.toContain('TOKEN-SECRET');
    expect(credentialsInUrl.code).toBe(2);
    expect(credentialsInUrl.stderr).toContain('must not carry credentials');
    expect(credentialsInUrl.stderr).not.toContain('URL-SECRET');
  }, 60_000);

  it("lists the principal's sessions and the calls waiting across them through the console API", async () => {
    const [table, json, bob, pending] = await Promise.all([
      asAlice('sessions', 'list'),
      asAlice('sessions', 'list', '--status', 'completed', '--json'),
      runCliProcess(['--server', kit.baseUrl, '--token', BOB, '--json', 'sessions', 'list']),
      asAlice('sessions', 'pending', '--json'),
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/s-approve\s+assistant\s+active\s+waiting/);
    expect(json.json()).toEqual({ sessions: [expect.objectContaining({ sessionId: 's-done', agentType: 'assistant', status: 'completed', awaitingHuman: false })], total: 1 });
    expect(bob.json()).toEqual({ sessions: [], total: 0 });
    expect(pending.json().calls.map((call: { sessionId: string; toolName: string }) => `${call.sessionId}:${call.toolName}`).sort()).toEqual(['s-approve:pay', 's-client:ask_user']);
  }, 60_000);

  it('refuses with 4 what the server cannot serve: other users, child sessions, messages, prune', async () => {
    const runs = await Promise.all([
      asAlice('sessions', 'list', '--user', 'bob'),
      asAlice('sessions', 'list', '--include-children'),
      asAlice('sessions', 'show', 's-done', '--messages', '3'),
      asAlice('prune', '--older-than', '30d'),
      asAlice('--schema', 'helix', 'sessions', 'show', 's-done'),
    ]);
    for (const run of runs.slice(0, 4)) {
      expect(run.code).toBe(4);
      expect(run.stderr).toContain('CLI_UNSUPPORTED_IN_MODE');
    }
    expect(runs[4]?.code).toBe(2);
  }, 60_000);
});

describe('server mode: answers and run control', () => {
  it('approves and submits through the server; the runs complete', async () => {
    const [approved, callId] = [await asAlice('approve', 's-approve', '--json'), (await status('s-client')).pendingToolCalls[0].toolCallId as string];
    expect(approved.code).toBe(0);
    expect(approved.json()).toEqual({ results: [expect.objectContaining({ sessionId: 's-approve', status: 'accepted', next: 'continues' })] });
    const submitted = await asAlice('submit', 's-client', callId, '--result', '{"city":"Oslo"}');
    expect(submitted.code).toBe(0);
    expect(submitted.stdout).toMatch(/s-client\s+\S+\s+accepted\s+continues/);
    await waitForStatus('s-approve', (body) => body.status === 'completed', 'completed');
    await waitForStatus('s-client', (body) => body.status === 'completed', 'completed');
  }, 90_000);

  it('interrupts, then resumes through the server (a new run), and aborts two sessions with a progress bar', async () => {
    await Promise.all([start('s-slow', 'slow12000: wait'), start('s-abort-1', 'slow20000: a'), start('s-abort-2', 'slow20000: b')]);
    await Promise.all(['s-slow', 's-abort-1', 's-abort-2'].map((id) => waitForStatus(id, (body) => body.run?.status === 'running', 'running')));
    const firstRun = (await status('s-slow')).run.runId as string;
    const interrupted = await asAlice('interrupt', 's-slow', '--json');
    expect(interrupted.json()).toEqual({ results: [{ sessionId: 's-slow', status: 'interrupt_requested' }] });
    const aborted = await asAlice('abort', 's-abort-1', 's-abort-2', '--progress', '--reason', 'operator');
    expect(aborted.code).toBe(0);
    expect(aborted.stdout).toMatch(/s-abort-2\s+aborted/);
    expect(aborted.stderr).toContain('] 2/2 abort s-abort-2');
    await waitForStatus('s-slow', (body) => body.status === 'interrupted', 'interrupted');
    const resumed = await asAlice('resume', 's-slow', '--json');
    expect(resumed.code).toBe(0);
    expect(resumed.json()).toEqual({ sessionId: 's-slow', runId: expect.any(String), streamId: 's-slow', startSequence: expect.any(Number) });
    expect(resumed.json().runId).not.toBe(firstRun);
    const notRunning = await asAlice('interrupt', 's-done');
    expect(notRunning.code).toBe(6);
    expect(notRunning.stdout).toContain('NO_ACTIVE_RUN');
    await waitForStatus('s-slow', (body) => body.status === 'completed', 'completed after the resume');
  }, 120_000);

  it('retries a failed session through POST /retry', async () => {
    await waitForStatus('s-abort-1', (body) => body.status === 'failed', 'failed');
    const retried = await asAlice('retry', 's-abort-1', '--json');
    expect(retried.code).toBe(0);
    expect(retried.json()).toEqual({ sessionId: 's-abort-1', runId: expect.any(String), streamId: 's-abort-1', startSequence: expect.any(Number) });
    await waitForStatus('s-abort-1', (body) => body.run?.status === 'running' && body.run.runId === retried.json().runId, 'running again');
    const again = await asAlice('abort', 's-abort-1');
    expect(again.code).toBe(0);
  }, 90_000);
});

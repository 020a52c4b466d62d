/**
 * The operator CLI in server mode against a real AgentServer on a loopback port WITHOUT its console API: every
 * command the executor routes serve works there (show, pending of a session, approve, submit, interrupt, resume,
 * abort, retry), and the commands only the console serves (`sessions list`, `sessions pending` across sessions) fail
 * with `CLI_CONSOLE_REQUIRED` (exit 4), saying to enable the console, never with the server's 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerKit, waitForStatus as waitForKitStatus, type ServerKit } from '../server/support/server-kit.js';
import { runCliProcess, type CliRun } from './support/cli-process.js';

const ALICE = 'token-alice';
const waitForStatus = (sessionId: string, check: (body: any) => boolean, what: string): Promise<any> => waitForKitStatus(kit, sessionId, check, what);
let kit: ServerKit;
const asAlice = (...args: string[]): Promise<CliRun> => runCliProcess(['--server', kit.baseUrl, '--token', ALICE, ...args]);

async function start(sessionId: string, input: string): Promise<void> {
  const response = await kit.call('/start', { token: ALICE, body: { agentType: 'assistant', sessionId, input } });
  expect(response.status).toBe(201);
}

beforeAll(async () => {
  kit = await startServerKit('cli_bare', {}, { hitlWarmWindowMs: 300_000 }); // no `console` option
  await Promise.all([start('b-approve', 'approve: pay'), start('b-client', 'client: where')]);
  await waitForStatus('b-approve', (body) => body.awaitingApproval === true, 'awaiting approval');
  await waitForStatus('b-client', (body) => body.awaitingClientTool === true, 'awaiting a client tool');
}, 120_000);

afterAll(async () => {
  await kit?.close();
});

describe('server mode without the console API', () => {
  it('the console is really off: its session list is a 404', async () => {
    expect((await kit.call('/console/api/sessions', { token: ALICE })).status).toBe(404);
  });

  it('shows, lists the calls of a session, approves and submits through the executor routes; the runs complete', async () => {
    const [shown, pending] = await Promise.all([asAlice('sessions', 'show', 'b-approve', '--json'), asAlice('sessions', 'pending', 'b-client', '--json')]);
    expect(shown.code).toBe(0);
    expect(shown.json()).toMatchObject({ session: { sessionId: 'b-approve', awaitingHuman: true }, pendingCalls: [{ sessionId: 'b-approve', toolName: 'pay', kind: 'approval' }] });
    expect(pending.code).toBe(0);
    const [call] = pending.json().calls as Array<{ toolCallId: string; toolName: string }>;
    expect(call?.toolName).toBe('ask_user');
    const [approved, submitted] = await Promise.all([
      asAlice('approve', 'b-approve', '--json'),
      asAlice('submit', 'b-client', call?.toolCallId ?? '', '--result', '{"city":"Oslo"}', '--json'),
    ]);
    expect(approved.code).toBe(0);
    expect(approved.json()).toEqual({ results: [expect.objectContaining({ sessionId: 'b-approve', status: 'accepted', next: 'continues' })] });
    expect(submitted.code).toBe(0);
    expect(submitted.json()).toEqual({ results: [expect.objectContaining({ sessionId: 'b-client', status: 'accepted' })] });
    await waitForStatus('b-approve', (body) => body.status === 'completed', 'completed');
    await waitForStatus('b-client', (body) => body.status === 'completed', 'completed');
  }, 90_000);

  it('interrupts and resumes (a new run that completes), aborts and retries (a new run) through the executor routes', async () => {
    await Promise.all([start('b-slow', 'slow30000: wait'), start('b-abort', 'slow20000: a')]);
    const [running] = await Promise.all(['b-slow', 'b-abort'].map((id) => waitForStatus(id, (body) => body.run?.status === 'running', 'running')));
    const [interrupted, aborted] = await Promise.all([asAlice('interrupt', 'b-slow', '--json'), asAlice('abort', 'b-abort', '--reason', 'operator', '--json')]);
    expect(interrupted.code).toBe(0);
    expect(interrupted.json()).toEqual({ results: [{ sessionId: 'b-slow', status: 'interrupt_requested' }] });
    expect(aborted.code).toBe(0);
    expect(aborted.json()).toEqual({ results: [{ sessionId: 'b-abort', status: 'aborted' }] });

    await waitForStatus('b-slow', (body) => body.status === 'interrupted', 'interrupted');
    const resumed = await asAlice('resume', 'b-slow', '--json');
    expect(resumed.code).toBe(0);
    expect(resumed.json()).toEqual({ sessionId: 'b-slow', runId: expect.any(String), streamId: 'b-slow', startSequence: expect.any(Number) });
    expect(resumed.json().runId).not.toBe(running.run.runId);

    const failed = await waitForStatus('b-abort', (body) => body.status === 'failed', 'failed (aborted)');
    expect(failed.failureReason).toBe('aborted');
    const retried = await asAlice('retry', 'b-abort', '--json');
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.json()).toEqual({ sessionId: 'b-abort', runId: expect.any(String), streamId: 'b-abort', startSequence: expect.any(Number) });
    await waitForStatus('b-abort', (body) => body.run?.status === 'running' && body.run.runId === retried.json().runId, 'running again (the retry)');
    expect((await asAlice('abort', 'b-abort')).code).toBe(0);
    await waitForStatus('b-slow', (body) => body.status === 'completed' && body.run?.runId === resumed.json().runId, 'completed by the resumed run');
  }, 120_000);

  it('the console-only commands fail with CLI_CONSOLE_REQUIRED (exit 4) saying to enable the console, without the token', async () => {
    const [list, listText, pendingAll, otherPath] = await Promise.all([
      asAlice('sessions', 'list', '--json'),
      asAlice('sessions', 'list'),
      asAlice('sessions', 'pending', '--json'),
      asAlice('--console-path', '/ops', 'sessions', 'list', '--awaiting-human', '--json'),
    ]);
    for (const run of [list, listText, pendingAll, otherPath]) {
      expect(run.code).toBe(4);
      expect(run.stdout).toBe('');
      expect(run.stderr).not.toContain(ALICE);
      expect(run.stderr).not.toContain('404');
    }
    expect(JSON.parse(list.stderr)).toEqual({ error: { code: 'CLI_CONSOLE_REQUIRED', message: expect.stringContaining("sessions list needs the AgentServer's console API") } });
    expect(listText.stderr).toMatch(/^helix-agents: CLI_CONSOLE_REQUIRED: sessions list needs the AgentServer's console API, which the server does not serve under \/console\/api: enable its `console` option/);
    expect(JSON.parse(pendingAll.stderr).error).toEqual({ code: 'CLI_CONSOLE_REQUIRED', message: expect.stringContaining('sessions pending (across sessions) needs') });
    expect(JSON.parse(otherPath.stderr).error.message).toContain('does not serve under /ops/api');
  }, 60_000);
});

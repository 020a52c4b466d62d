/**
 * The documented shutdown — `await executor.close(); await DBOS.shutdown();` then the stores — lets the process exit
 * by itself within 2 s, also while runs wait warm for a human (a client tool, an approval, an approval inside a
 * persistent session's turn, a sub-agent's client tool with its parent waiting for it) and a persistent session
 * idles warm. Real child processes (shutdown-child.ts): the
 * parent times from the child's `shutdown` line to its exit. The waits stay recoverable: a second process with the
 * same DBOS executor id recovers them, and each answer continues its run in place (same run id, `continues`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';
import { SHUTDOWN_CHILD_ENV, SHUTDOWN_SESSIONS, type ShutdownChildConfig } from './shutdown-child-config.js';

const CHILD_SCRIPT = fileURLToPath(new URL('./shutdown-child.ts', import.meta.url));
const REPOSITORY_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The bound this test exists for: from the first shutdown call to the process gone. */
const EXIT_WITHIN_MS = 2_000;

interface ChildEvent {
  event: string;
  at?: number;
  sessionId?: string;
  runId?: string;
  workflowId?: string;
  status?: string;
  submitted?: { status: string; next?: string };
  message?: string;
}

interface ChildRun {
  events: ChildEvent[];
  code: number | null;
  /** When the parent saw the child's `shutdown` line, and when it saw the child exit (parent clock). */
  shutdownSeenAt?: number;
  exitedAt: number;
  stderr: string;
}

let database: TestDatabase;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  database = await createTestDatabase('exit_after_shutdown');
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await database?.drop();
});

/** Run the child to its end (SIGKILL after `limitMs`: then `code` is null). */
function runChild(mode: ShutdownChildConfig['mode'], limitMs: number): Promise<ChildRun> {
  const config: ShutdownChildConfig = { mode, databaseUrl: database.url, order: 'documented' };
  const environment: NodeJS.ProcessEnv = { ...process.env, [SHUTDOWN_CHILD_ENV]: JSON.stringify(config), DBOS__VMID: 'exit-after-shutdown' };
  delete environment.NODE_OPTIONS;
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD_SCRIPT], { cwd: REPOSITORY_ROOT, env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const run: ChildRun = { events: [], code: null, exitedAt: 0, stderr: '' };
  let pending = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{"event"')) continue;
      const event = JSON.parse(line) as ChildEvent;
      if (event.event === 'shutdown') run.shutdownSeenAt = Date.now();
      run.events.push(event);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => (run.stderr += text));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      children.delete(child);
      run.code = code;
      run.exitedAt = Date.now();
      resolve(run);
    });
  });
}

describe('exit after the documented shutdown', () => {
  it('exits by itself within 2 s while runs wait warm for humans and a persistent session idles warm; the waits recover', async () => {
    const start = await runChild('start', 90_000);
    expect(start.events.find((event) => event.event === 'failed')).toBeUndefined();
    expect(start.shutdownSeenAt, `the child never reached its shutdown\n${start.stderr}`).toBeDefined();
    expect(start.events.some((event) => event.event === 'closed')).toBe(true);
    expect(start.code).toBe(0); // null: killed, something kept the event loop alive
    expect(start.exitedAt - (start.shutdownSeenAt ?? 0)).toBeLessThanOrEqual(EXIT_WITHIN_MS);
    expect(start.stderr).not.toMatch(/Error|at .+:\d+:\d+/);
    const started = start.events.filter((event) => event.event === 'started');
    const { clientTool, approval, approvalPersistent, subAgent } = SHUTDOWN_SESSIONS;
    expect(started.map((event) => event.sessionId).sort()).toEqual([clientTool, approval, approvalPersistent, subAgent].map((session) => session.sessionId).sort());

    // Nothing was failed or parked: DBOS recovers each wait in the next process, and an answer continues it in place.
    const recover = await runChild('recover', 90_000);
    expect(recover.events.find((event) => event.event === 'failed')).toBeUndefined();
    expect(recover.code).toBe(0);
    const results = recover.events.filter((event) => event.event === 'result');
    expect(results).toHaveLength(4);
    for (const result of results) {
      const run = started.find((event) => event.sessionId === result.sessionId);
      expect(result).toMatchObject({ submitted: { status: 'accepted', next: 'continues' }, status: 'completed', runId: run?.runId });
    }
  }, 200_000);
});

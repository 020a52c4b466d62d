import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStateStore } from '../../src/store/postgres/postgres-state-store.js';
import { createTestDatabase, type TestDatabase } from '../support/services.js';

const WORKER = fileURLToPath(new URL('./worker/user-app-worker.ts', import.meta.url));
const children: ChildProcess[] = [];
let database: TestDatabase;
let stateStore: PostgresStateStore;

beforeAll(async () => {
  database = await createTestDatabase('inside_user_workflow');
  stateStore = new PostgresStateStore({ connectionString: database.url });
  await stateStore.migrate();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await stateStore?.close();
  await database?.drop();
});

/** Start a worker; resolve with its output once `line` appears (or reject on exit / timeout). */
function spawnUntil(mode: 'start' | 'recover', sessionId: string, line: RegExp, timeoutMs: number): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
    env: { ...process.env, HELIX_USER_APP_DB: database.url, HELIX_USER_APP_MODE: mode, HELIX_USER_APP_SESSION: sessionId, DBOS__VMID: 'user-app-executor' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${String(line)}; output:\n${output}`)), timeoutMs);
    const check = (data: Buffer): void => {
      output += data.toString();
      if (line.test(output)) {
        clearTimeout(timer);
        resolve({ child, output });
      }
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', (data: Buffer) => (output += data.toString()));
    child.once('exit', (code) => {
      if (!line.test(output)) {
        clearTimeout(timer);
        reject(new Error(`worker exited (${String(code)}) before ${String(line)}; output:\n${output}`));
      }
    });
  });
}

describe('execute() inside a user\'s @DBOS.workflow survives SIGKILL and recovery', () => {
  it('the recovered workflow replays execute() without a phantom second run and gets the same run\'s result', async () => {
    const sessionId = 'onboard-ada';
    const { child } = await spawnUntil('start', sessionId, /agent-done/, 60_000);
    const before = (await stateStore.listRuns(sessionId)).runs;
    expect(before.map((run) => run.status)).toEqual(['completed']);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    const { output } = await spawnUntil('recover', sessionId, /result \{.*\}\n/, 60_000);
    const result = JSON.parse(/result (\{.*\})\n/.exec(output)![1]!) as { runId: string; status: string; output: unknown };
    expect(result).toEqual({ runId: before[0]!.runId, status: 'completed', output: 'Welcome aboard!' });
    const runs = (await stateStore.listRuns(sessionId)).runs;
    expect(runs).toHaveLength(1); // no phantom run
    expect(runs[0]).toMatchObject({ runId: before[0]!.runId, status: 'completed' });
    const users = (await stateStore.getMessages(sessionId)).messages.filter((message) => message.role === 'user');
    expect(users).toHaveLength(1);
    expect((await stateStore.loadState(sessionId))?.status).toBe('completed');
  }, 150_000);
});

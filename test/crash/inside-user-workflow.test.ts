import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useDrill } from './support/drill.js';
import type { UserAppWorkerConfig } from './worker/worker-config.js';

const WORKER = fileURLToPath(new URL('./worker/user-app-worker.ts', import.meta.url));
const EXECUTOR_ID = 'user-app-executor';

const env = useDrill('inside_user_workflow', { setupTimeoutMs: 60_000 });

const spawnUserApp = (mode: UserAppWorkerConfig['mode'], sessionId: string) =>
  env.workers.spawn(`${mode} user-app worker`, EXECUTOR_ID, { mode, databaseUrl: env.database.url, sessionId } satisfies UserAppWorkerConfig, WORKER);

describe('execute() inside a user\'s @DBOS.workflow survives SIGKILL and recovery', () => {
  it('the recovered workflow replays execute() without a phantom second run and gets the same run\'s result', async () => {
    const sessionId = 'onboard-ada';
    const starter = spawnUserApp('start', sessionId);
    await starter.waitForEvent('agent_done', 60_000);
    const before = (await env.stateStore.listRuns(sessionId)).runs;
    expect(before.map((run) => run.status)).toEqual(['completed']);
    await starter.kill();

    const { result } = await spawnUserApp('recover', sessionId).waitForEvent('result', 60_000);
    expect(result).toEqual({ runId: before[0]!.runId, status: 'completed', output: 'Welcome aboard!' });
    const runs = (await env.stateStore.listRuns(sessionId)).runs;
    expect(runs).toHaveLength(1); // no phantom run
    expect(runs[0]).toMatchObject({ runId: before[0]!.runId, status: 'completed' });
    const users = (await env.stateStore.getMessages(sessionId)).messages.filter((message) => message.role === 'user');
    expect(users).toHaveLength(1);
    expect((await env.stateStore.loadState(sessionId))?.status).toBe('completed');
  }, 150_000);
});

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecutorIdInUseError, InvalidArgumentError } from '../../../src/errors/index.js';
import { FleetMember } from '../../../src/fleet/fleet-member.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';

const llm = scriptedLLM();
let runtime: TestRuntime;
let pool: pg.Pool;
beforeAll(async () => {
  runtime = await startTestRuntime('fleet_member', llm.adapter);
  pool = new pg.Pool({ connectionString: runtime.database.url, max: 2 });
});
afterAll(async () => {
  await pool?.end();
  await runtime?.shutdown();
});

const members = async (): Promise<string[]> => (await pool.query<{ executor_id: string }>('SELECT executor_id FROM helix_fleet.members ORDER BY executor_id')).rows.map((row) => row.executor_id);
const join = (executorId: string, extra: { leaseWaitMs?: number; deadAfterMs?: number } = {}) =>
  FleetMember.join({ systemDatabaseUrl: runtime.database.url, executorId, sweepIntervalMs: 50, ...extra });

describe('FleetMember', () => {
  it('holds its executor id: a second process with the same id waits for the first to leave, or gives up typed', async () => {
    const first = await join('worker-a');
    await expect(join('worker-a', { leaseWaitMs: 300 })).rejects.toSatisfy((error: unknown) => ExecutorIdInUseError.isInstance(error));
    const waiting = join('worker-a', { leaseWaitMs: 10_000 });
    let joined = false;
    void waiting.then(() => (joined = true));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(joined).toBe(false); // a rolling deploy's new process does not run beside the old one
    await first.leave();
    const second = await waiting;
    expect(second.executorId).toBe('worker-a');
    expect(await members()).toContain('worker-a');
    await second.leave();
  });

  it('refuses malformed options with typed errors', async () => {
    const refused = (error: unknown) => InvalidArgumentError.isInstance(error);
    await expect(FleetMember.join({ systemDatabaseUrl: runtime.database.url, executorId: 'has space' })).rejects.toSatisfy(refused);
    await expect(FleetMember.join({ systemDatabaseUrl: '', executorId: 'ok' })).rejects.toSatisfy(refused);
    await expect(FleetMember.join({ systemDatabaseUrl: runtime.database.url, executorId: 'ok', deadAfterMs: 0 })).rejects.toSatisfy(refused);
    await expect(FleetMember.join({ systemDatabaseUrl: runtime.database.url, executorId: 'ok', recoveryQueue: 'bad queue' })).rejects.toSatisfy(refused);
  });

  it('forgets a member whose lease stayed free for deadAfterMs and that left no pending run; a live member is kept', async () => {
    const live = await join('worker-live');
    const gone = await join('worker-gone');
    await gone.leave(); // its lease is free from now on, as if its process died
    const sweeper = await join('worker-sweeper', { deadAfterMs: 300 });
    expect(await sweeper.sweepOnce()).toBe(0);
    expect(await members()).toEqual(expect.arrayContaining(['worker-gone', 'worker-live', 'worker-sweeper']));
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await sweeper.sweepOnce()).toBe(0);
    const left = await members();
    expect(left).not.toContain('worker-gone');
    expect(left).toEqual(expect.arrayContaining(['worker-live', 'worker-sweeper']));
    await Promise.all([live.leave(), sweeper.leave()]);
  });
});

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecutorIdInUseError, InvalidArgumentError } from '../../../src/errors/index.js';
import { FleetMember } from '../../../src/fleet/fleet-member.js';
import { permitHolder } from '../../../src/limits/model-limits.js';
import { PostgresModelLimiter } from '../../../src/limits/postgres-model-limiter.js';
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

  it("releases a dead member's model permits when it takes it over, so the fleet's slots are not held for their lease", async () => {
    const limiter = new PostgresModelLimiter({ connectionString: runtime.database.url, limits: { 'fake:model': { concurrency: 1 } } });
    await limiter.migrate();
    const gone = await join('worker-holding');
    const held = await limiter.tryAcquire({ modelKey: 'fake:model', holder: permitHolder('worker-holding', 'wf', 1, 'a'), estimatedTokens: 1 });
    expect(held.granted).toBe(true);
    await gone.leave(); // dies holding its permit
    const other = { modelKey: 'fake:model', holder: permitHolder('worker-other', 'wf2', 1, 'b'), estimatedTokens: 1 };
    expect((await limiter.tryAcquire(other)).granted).toBe(false);
    const sweeper = await FleetMember.join({ systemDatabaseUrl: runtime.database.url, executorId: 'worker-keeper', deadAfterMs: 200, sweepIntervalMs: 60_000, modelLimiter: limiter });
    await sweeper.sweepOnce();
    await new Promise((resolve) => setTimeout(resolve, 250));
    await sweeper.sweepOnce();
    expect((await limiter.tryAcquire(other)).granted).toBe(true);
    await sweeper.leave();
    await limiter.close();
  });
});

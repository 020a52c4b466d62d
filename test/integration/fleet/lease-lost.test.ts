/**
 * A fleet member cut off from its own lease while its process lives (its lease connection's backend terminated): if it
 * cannot take the lease back within half of `deadAfterMs` — before any sweeper may take it for dead — it reports the
 * loss (`onLeaseLost`, the process's cue to stop); a loss it repairs in time is not reported.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../src/errors/index.js';
import { FleetMember } from '../../../src/fleet/fleet-member.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

/** The two-int advisory key of an executor id's lease (fleet-lease.ts: 'HLF', hashtext(id)). */
const LEASE_KEY = "0x484c46, hashtext($1)";
const DEAD_AFTER_MS = 600;

let database: TestDatabase;
let pool: pg.Pool;
beforeAll(async () => {
  database = await createTestDatabase('fleet_lease_lost');
  pool = new pg.Pool({ connectionString: database.url, max: 3 });
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

/** The backend holding `executorId`'s lease. */
async function leaseBackend(executorId: string): Promise<number> {
  const { rows } = await pool.query<{ pid: number }>(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = 4738118 AND objsubid = 2
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND objid = ((hashtext($1)::bigint + 4294967296) % 4294967296)::text::oid`,
    [executorId],
  );
  expect(rows).toHaveLength(1);
  return rows[0]!.pid;
}

async function join(executorId: string, lost: number[]): Promise<FleetMember> {
  return FleetMember.join({ systemDatabaseUrl: database.url, executorId, deadAfterMs: DEAD_AFTER_MS, sweepIntervalMs: 50, onLeaseLost: (ms) => void lost.push(ms) });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Cut `executorId`'s member off from its lease: its lease backend is terminated while a connection of the test waits
 * for the lock, so that connection holds it before the member can reconnect. Returns that connection (release it
 * with `free`).
 */
async function cutOff(executorId: string, backend: number): Promise<pg.PoolClient> {
  const squatter = await pool.connect();
  // Queued behind the member's lock: granted the moment its backend goes, before the member can reconnect.
  const squatting = squatter.query(`SELECT pg_advisory_lock(${LEASE_KEY})`, [executorId]);
  await sleep(50);
  await pool.query('SELECT pg_terminate_backend($1)', [backend]);
  await squatting;
  return squatter;
}

/** Give the lock back and the connection to the pool. */
async function free(squatter: pg.PoolClient): Promise<void> {
  await squatter.query('SELECT pg_advisory_unlock_all()');
  squatter.release();
}

describe('a fleet member that loses its own lease', () => {
  it('reports the loss once when another connection holds the lease past half of deadAfterMs, and takes it back later', async () => {
    const lost: number[] = [];
    const member = await join('worker-cut-off', lost);
    const backend = await leaseBackend('worker-cut-off');
    const squatter = await cutOff('worker-cut-off', backend);
    try {
      await sleep(DEAD_AFTER_MS / 2 - 100);
      expect(lost).toEqual([]);
      await expect.poll(() => lost.length, { timeout: 1_000, interval: 10 }).toBe(1);
      expect(lost[0]).toBeGreaterThanOrEqual(DEAD_AFTER_MS / 2 - 5);
      await sleep(DEAD_AFTER_MS);
      expect(lost).toHaveLength(1);
      await squatter.query(`SELECT pg_advisory_unlock(${LEASE_KEY})`, ['worker-cut-off']);
      await expect.poll(() => leaseBackend('worker-cut-off').catch(() => 0), { timeout: 3_000, interval: 20 }).not.toBe(backend);
    } finally {
      await free(squatter);
      await member.leave();
    }
  });

  it('does not report a loss it repairs in time (its lease taken back on a new connection)', async () => {
    const lost: number[] = [];
    const member = await join('worker-blip', lost);
    const backend = await leaseBackend('worker-blip');
    await pool.query('SELECT pg_terminate_backend($1)', [backend]);
    await expect.poll(() => leaseBackend('worker-blip').catch(() => backend), { timeout: 3_000, interval: 20 }).not.toBe(backend);
    await sleep(DEAD_AFTER_MS);
    expect(lost).toEqual([]);
    await member.leave();
  });

  it('leaves at once while it waits to take its lease back from another connection', async () => {
    const member = await join('worker-leaving', []);
    const squatter = await cutOff('worker-leaving', await leaseBackend('worker-leaving'));
    try {
      await sleep(200); // its loop is now waiting for the lease (up to leaseWaitMs, 120 s)
      const leaving = Date.now();
      await member.leave();
      expect(Date.now() - leaving).toBeLessThan(2_000);
    } finally {
      await free(squatter);
    }
  });

  it('refuses an onLeaseLost that is not a function', async () => {
    const joining = FleetMember.join({ systemDatabaseUrl: database.url, executorId: 'worker-x', onLeaseLost: 'exit' as unknown as () => void });
    await expect(joining).rejects.toSatisfy((error: unknown) => InvalidArgumentError.isInstance(error));
  });
});

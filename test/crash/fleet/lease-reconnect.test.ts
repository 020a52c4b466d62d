/**
 * A live member's lease connection is cut. Two fleet members run 12 queued sessions: P (sweeping every 100 ms, so it
 * notices a lost lease connection fast) and Q (deadAfterMs 5 s). While P has runs in a tool, its lease connection
 * (`application_name = 'helix-fleet'`, the backend holding P's advisory lock) is terminated; P's lease is free until
 * P reconnects and takes it back, well within Q's deadAfterMs. Q must not take P for dead: P's runs stay P's (never
 * re-enqueued, executor id unchanged), every tool call runs exactly once and every session completes once.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { describe, expect, it } from 'vitest';
import { DRILL_TIMEOUTS } from '../support/drill-flow.js';
import { waitUntil, workflowRowOf } from '../support/durable-probes.js';
import { createLedgerFleetAgent } from '../worker/fleet-agent.js';
import { enqueueSessions, expectSessionsCompleted, ledgerScenario, spawnMember, useFleetDrill, type MemberOptions } from './fleet-drill.js';
import { accountReRuns, ledgerOf } from './tool-ledger.js';

const SESSIONS = Array.from({ length: 12 }, (_, index) => `lease-cut-${index + 1}`);
const TOOL_STEPS = 2;
const LIVE_ID = 'fleet-p';
const PEER_ID = 'fleet-q';
/** The peer's patience: P reconnects in well under this (its sweep notices the lost connection within 100 ms). */
const PEER_DEAD_AFTER_MS = 5_000;
/** The advisory-lock key space of fleet leases (src/fleet/fleet-lease.ts: 'HLF'). */
const LEASE_KEYSPACE = 0x48_4c_46;

const { env, api } = useFleetDrill(
  'crash_fleet_lease_cut',
  SESSIONS.map((sessionId) => [sessionId, ledgerScenario(sessionId, { toolSteps: TOOL_STEPS })] as const),
);

const MEMBER: MemberOptions = { sessions: SESSIONS, workerConcurrency: 4, toolDelayMs: 800, deadAfterMs: PEER_DEAD_AFTER_MS, sweepIntervalMs: 100 };

/** The backend pid holding `executorId`'s lease (a session advisory lock of a `helix-fleet` connection), if any. */
async function leaseHolderOf(executorId: string): Promise<number | undefined> {
  const { rows } = await env.pool.query<{ pid: number }>(
    `SELECT lock.pid FROM pg_locks lock JOIN pg_stat_activity activity ON activity.pid = lock.pid
     WHERE lock.locktype = 'advisory' AND lock.granted AND lock.objsubid = 2 AND lock.classid::bigint = $1
       AND lock.objid::bigint = (hashtext($2)::bigint + 4294967296) % 4294967296
       AND activity.application_name = 'helix-fleet' AND activity.datname = current_database()`,
    [LEASE_KEYSPACE, executorId],
  );
  return rows[0]?.pid;
}

async function pendingOf(executorId: string): Promise<string[]> {
  const { rows } = await env.pool.query<{ workflow_uuid: string }>("SELECT workflow_uuid FROM dbos.workflow_status WHERE executor_id = $1 AND status = 'PENDING'", [executorId]);
  return rows.map((row) => row.workflow_uuid);
}

describe('lease connection cut: a live member reconnects before its peers take it for dead', () => {
  it('keeps its runs: none re-enqueued or moved, each tool call once, every session completes once', async () => {
    const live = spawnMember(env, LIVE_ID, MEMBER);
    const peer = spawnMember(env, PEER_ID, MEMBER);
    for (const worker of [live, peer]) await worker.waitForEvent('launched', DRILL_TIMEOUTS.start);
    const runs = await enqueueSessions(api(), createLedgerFleetAgent(env.pool), SESSIONS);
    await waitUntil('P in two tools', DRILL_TIMEOUTS.signal, async () => {
      const open = (await ledgerOf(env.pool)).filter((execution) => execution.pid === live.pid && execution.endedAt === null);
      return open.length >= 2;
    }, () => live.describe());

    const cutPid = await leaseHolderOf(LIVE_ID);
    const peerLeasePid = await leaseHolderOf(PEER_ID);
    if (cutPid === undefined || peerLeasePid === undefined) throw new Error('a member holds no lease');
    const runsOfLive = await pendingOf(LIVE_ID);
    expect(runsOfLive.length).toBeGreaterThanOrEqual(2);
    const { rows } = await env.pool.query<{ terminated: boolean }>('SELECT pg_terminate_backend($1) AS terminated', [cutPid]);
    expect(rows[0]?.terminated).toBe(true);
    const cutAt = Date.now();

    // P takes its lease back on a new connection (the peer's probe holds it only for an instant).
    let reconnectedPid: number | undefined;
    await waitUntil('P holding its lease again', DRILL_TIMEOUTS.signal, async () => {
      reconnectedPid = await leaseHolderOf(LIVE_ID);
      return reconnectedPid !== undefined && reconnectedPid !== cutPid && reconnectedPid !== peerLeasePid;
    }, () => live.describe());
    const reconnectedAfterMs = Date.now() - cutAt;
    // The premise of the drill (a generous bound): P was back before the peer could have taken it for dead.
    expect(reconnectedAfterMs).toBeLessThan(PEER_DEAD_AFTER_MS);

    await expectSessionsCompleted(env, runs, TOOL_STEPS);
    for (const worker of [live, peer]) expect(await worker.waitForExit(DRILL_TIMEOUTS.exit)).toBe(0);
    // P's runs were never taken over: still P's, and dequeued once, before the cut (a re-enqueued run is dequeued again).
    for (const workflowId of runsOfLive) {
      expect(await DBOS.getWorkflowStatus(workflowId), workflowId).toMatchObject({ status: 'SUCCESS', executorId: LIVE_ID });
      expect((await workflowRowOf(env.pool, workflowId))?.startedAt ?? Number.POSITIVE_INFINITY, workflowId).toBeLessThan(cutAt);
    }
    // Nothing ran twice, and every tool of P's runs ran in P.
    const executions = await ledgerOf(env.pool);
    const account = accountReRuns(executions, new Set(), -1);
    expect(account.unexpected).toEqual([]);
    expect(account.calls).toBe(SESSIONS.length * TOOL_STEPS);
    const sessionsOfLive = new Set(runs.filter(({ handle }) => runsOfLive.includes(handle.workflowId)).map(({ sessionId }) => sessionId));
    expect(executions.filter((execution) => sessionsOfLive.has(execution.sessionId)).every((execution) => execution.pid === live.pid)).toBe(true);
    console.info(`[lease cut] ${JSON.stringify({ sessions: SESSIONS.length, runsOfLive: runsOfLive.length, reconnectedAfterMs, calls: account.calls, reRuns: account.reRuns })}`);
  }, 120_000);
});

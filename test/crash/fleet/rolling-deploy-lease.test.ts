/**
 * Rolling deploy with the executor-id lease. Process A (fleet member `worker-x`) runs 8 queued sessions of a
 * three-lookup agent with a slow tool; process B starts with the SAME executor id. B waits in `FleetMember.join` while
 * A lives — A keeps running its sessions, B launches nothing — and joins only after A, sent SIGTERM, shut down
 * gracefully (executor.close(), DBOS.shutdown(), connections closed, member.leave()). B's DBOS launch then recovers
 * worker-x's pending runs. Every session completes once, the two processes never ran tools at the same time, no
 * tool call whose step A recorded ran again (the drill without the lease, test/crash/rolling-deploy.test.ts, re-ran
 * 2 of 90), and each lookup the shutdown cut short (A's close does not drain) ran exactly once more, in B.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { describe, expect, it } from 'vitest';
import { DRILL_TIMEOUTS } from '../support/drill-flow.js';
import { waitUntil } from '../support/durable-probes.js';
import { createLedgerFleetAgent } from '../worker/fleet-agent.js';
import { FLEET_QUEUE } from '../worker/fleet-worker-config.js';
import { enqueueSessions, expectSessionsCompleted, fleetEventOf, ledgerScenario, lookupCallId, spawnMember, useFleetDrill, waitForFleetEvent, type MemberOptions } from './fleet-drill.js';
import { accountReRuns, ledgerOf, toolCallsRecorded } from './tool-ledger.js';

const SESSIONS = Array.from({ length: 8 }, (_, index) => `rolling-lease-${index + 1}`);
const EXECUTOR_ID = 'worker-x';
const TOOL_STEPS = 3;

const { env, api } = useFleetDrill(
  'crash_fleet_rolling',
  SESSIONS.map((sessionId) => [sessionId, ledgerScenario(sessionId, { toolSteps: TOOL_STEPS })] as const),
);

const MEMBER: MemberOptions = { sessions: SESSIONS, workerConcurrency: SESSIONS.length, toolDelayMs: 1_000, deadAfterMs: 1_500, sweepIntervalMs: 250 };

async function membersJoinedAt(): Promise<number | undefined> {
  const { rows } = await env.pool.query<{ joined_at: Date }>('SELECT joined_at FROM helix_fleet.members WHERE executor_id = $1', [EXECUTOR_ID]);
  return rows[0]?.joined_at.getTime();
}

describe('rolling deploy with the executor-id lease', () => {
  it('B waits for A to leave; 8 sessions complete once, no recorded tool re-runs, A and B never overlap', async () => {
    const oldProcess = spawnMember(env, EXECUTOR_ID, MEMBER, 'old process');
    await waitForFleetEvent(oldProcess, 'joined', DRILL_TIMEOUTS.start);
    const joinedBefore = await membersJoinedAt();
    // B starts with A's executor id before A has any work, and waits in join while A runs every session.
    const newProcess = spawnMember(env, EXECUTOR_ID, MEMBER, 'new process');
    const joining = await waitForFleetEvent(newProcess, 'joining', DRILL_TIMEOUTS.start);
    await oldProcess.waitForEvent('launched', DRILL_TIMEOUTS.start);
    const runs = await enqueueSessions(api(), createLedgerFleetAgent(env.pool), SESSIONS);
    const sessionOfWorkflow = new Map(runs.map(({ sessionId, handle }) => [handle.workflowId, sessionId]));
    await waitUntil('every session in its second lookup', DRILL_TIMEOUTS.signal, async () => {
      const second = (await ledgerOf(env.pool)).filter((execution) => execution.toolCallId === lookupCallId(2));
      return new Set(second.map((execution) => execution.sessionId)).size === SESSIONS.length;
    }, () => `${oldProcess.describe()}\n${newProcess.describe()}`);
    const finishedWhileWaiting = (await ledgerOf(env.pool)).filter((execution) => execution.pid === oldProcess.pid && (execution.endedAt ?? 0) > joining.at);
    expect(finishedWhileWaiting.length).toBeGreaterThanOrEqual(SESSIONS.length);
    expect(newProcess.alive).toBe(true);
    expect(fleetEventOf(newProcess, 'joined')).toBeUndefined();
    expect(newProcess.events.filter((event) => event.event === 'launched')).toEqual([]);
    expect(await membersJoinedAt()).toBe(joinedBefore);

    // A is stopped the way a deploy stops it; B joins once A left, and its launch recovers worker-x's runs.
    process.kill(oldProcess.pid, 'SIGTERM');
    expect(await oldProcess.waitForExit(DRILL_TIMEOUTS.exit)).toBe(0);
    const leaving = fleetEventOf(oldProcess, 'leaving');
    if (leaving === undefined) throw new Error(`the old process exited without leaving\n${oldProcess.describe()}`);
    const joined = await waitForFleetEvent(newProcess, 'joined', DRILL_TIMEOUTS.start);
    expect(joined.at).toBeGreaterThanOrEqual(leaving.at);
    expect((await membersJoinedAt()) ?? 0).toBeGreaterThanOrEqual(leaving.at - 1);
    await expectSessionsCompleted(env, runs, TOOL_STEPS);
    expect(await newProcess.waitForExit(DRILL_TIMEOUTS.exit)).toBe(0);

    for (const { sessionId, handle } of runs) {
      expect(await DBOS.getWorkflowStatus(handle.workflowId), sessionId).toMatchObject({ status: 'SUCCESS', executorId: EXECUTOR_ID, queueName: FLEET_QUEUE });
    }
    // Never side by side: every tool A ran started before B joined; every tool B ran started after A shut down.
    const executions = await ledgerOf(env.pool);
    const byOld = executions.filter((execution) => execution.pid === oldProcess.pid);
    const byNew = executions.filter((execution) => execution.pid === newProcess.pid);
    expect(byOld.length + byNew.length).toBe(executions.length);
    expect(byOld.filter((execution) => execution.startedAt >= joined.at)).toEqual([]);
    expect(byNew.filter((execution) => execution.startedAt < leaving.at)).toEqual([]);
    expect(byNew.length).toBeGreaterThan(0);

    // A call whose step A recorded never ran again; a call A left unrecorded ran exactly once more, in B.
    const account = accountReRuns(executions, await toolCallsRecorded(env.pool, sessionOfWorkflow, leaving.at), oldProcess.pid);
    expect(account.unexpected).toEqual([]);
    expect(account.finishedReRun).toBe(0);
    expect(account.calls).toBe(SESSIONS.length * TOOL_STEPS);
    expect(account.departedRecorded).toBeGreaterThanOrEqual(SESSIONS.length);
    console.info(`[rolling deploy, lease] ${JSON.stringify({ sessions: SESSIONS.length, waitedMs: joined.at - joining.at, handOverMs: joined.at - leaving.at, ...account })}`);
  }, 120_000);
});

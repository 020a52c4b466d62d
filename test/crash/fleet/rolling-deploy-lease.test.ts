/**
 * Rolling deploy with the executor-id lease. Process A (a fleet member) runs 8 queued sessions of a three-lookup agent
 * with a slow tool; process B starts with the SAME executor id. B waits in `FleetMember.join` while A lives — A keeps
 * running its sessions, B launches nothing — and joins only after A, sent SIGTERM, shut down gracefully; then B runs
 * what A left. Every session completes once, the two processes never ran tools at the same time, and no tool call
 * whose step A recorded ran again (the drill without the lease, test/crash/rolling-deploy.test.ts, re-ran 2 of 90).
 * Two shutdowns: `executor.close()` (no drain: the lookups in flight are cut and each runs exactly once more, in B,
 * whose DBOS launch recovers the executor id's pending runs), and `close({ drain: true })` + `member.handOver()`
 * (every lookup A started finishes there; nothing runs twice).
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { describe, expect, it } from 'vitest';
import { DRILL_TIMEOUTS } from '../support/drill-flow.js';
import { waitUntil } from '../support/durable-probes.js';
import { createLedgerFleetAgent } from '../worker/fleet-agent.js';
import { FLEET_QUEUE } from '../worker/fleet-worker-config.js';
import { enqueueSessions, expectSessionsCompleted, fleetEventOf, ledgerScenario, lookupCallId, spawnMember, useFleetDrill, waitForFleetEvent, type MemberOptions } from './fleet-drill.js';
import { accountReRuns, ledgerOf, toolCallsRecorded, type ReRunAccount, type ToolExecution } from './tool-ledger.js';

const TOOL_STEPS = 3;

/** One deploy: the shared executor id, its sessions and how A shuts down. */
interface Deploy {
  executorId: string;
  sessions: string[];
  drain: boolean;
}

const sessionsOf = (prefix: string): string[] => Array.from({ length: 8 }, (_, index) => `${prefix}-${index + 1}`);
const PLAIN: Deploy = { executorId: 'worker-x', sessions: sessionsOf('rolling-lease'), drain: false };
const DRAINED: Deploy = { executorId: 'worker-y', sessions: sessionsOf('rolling-drain'), drain: true };

const { env, api } = useFleetDrill(
  'crash_fleet_rolling',
  [...PLAIN.sessions, ...DRAINED.sessions].map((sessionId) => [sessionId, ledgerScenario(sessionId, { toolSteps: TOOL_STEPS })] as const),
);

async function membersJoinedAt(executorId: string): Promise<number | undefined> {
  const { rows } = await env.pool.query<{ joined_at: Date }>('SELECT joined_at FROM helix_fleet.members WHERE executor_id = $1', [executorId]);
  return rows[0]?.joined_at.getTime();
}

async function executionsOf(sessions: readonly string[]): Promise<ToolExecution[]> {
  return (await ledgerOf(env.pool)).filter((execution) => sessions.includes(execution.sessionId));
}

/** What a deploy left to check beyond the common assertions: the re-run account and who ran which tool. */
interface DeployOutcome {
  account: ReRunAccount;
  byOld: ToolExecution[];
  byNew: ToolExecution[];
}

/**
 * Run one rolling deploy and make the assertions both shutdowns share: B waits while A works, joins only after A shut
 * down, the sessions complete once on the executor id, A and B never ran tools side by side, and the re-run account
 * holds (a call recorded before A shut down ran once; one A left unrecorded ran exactly once more).
 */
async function rollingDeploy({ executorId, sessions, drain }: Deploy): Promise<DeployOutcome> {
  const member: MemberOptions = { sessions, workerConcurrency: sessions.length, toolDelayMs: 1_000, deadAfterMs: 1_500, sweepIntervalMs: 250, drain };
  const oldProcess = spawnMember(env, executorId, member, `old process ${executorId}`);
  await waitForFleetEvent(oldProcess, 'joined', DRILL_TIMEOUTS.start);
  const joinedBefore = await membersJoinedAt(executorId);
  // B starts with A's executor id before A has any work, and waits in join while A runs every session.
  const newProcess = spawnMember(env, executorId, member, `new process ${executorId}`);
  const joining = await waitForFleetEvent(newProcess, 'joining', DRILL_TIMEOUTS.start);
  await oldProcess.waitForEvent('launched', DRILL_TIMEOUTS.start);
  const runs = await enqueueSessions(api(), createLedgerFleetAgent(env.pool), sessions);
  await waitUntil('every session in its second lookup', DRILL_TIMEOUTS.signal, async () => {
    const second = (await executionsOf(sessions)).filter((execution) => execution.toolCallId === lookupCallId(2));
    return new Set(second.map((execution) => execution.sessionId)).size === sessions.length;
  }, () => `${oldProcess.describe()}\n${newProcess.describe()}`);
  const finishedWhileWaiting = (await executionsOf(sessions)).filter((execution) => execution.pid === oldProcess.pid && (execution.endedAt ?? 0) > joining.at);
  expect(finishedWhileWaiting.length).toBeGreaterThanOrEqual(sessions.length);
  expect(newProcess.alive).toBe(true);
  expect(fleetEventOf(newProcess, 'joined')).toBeUndefined();
  expect(newProcess.events.filter((event) => event.event === 'launched')).toEqual([]);
  expect(await membersJoinedAt(executorId)).toBe(joinedBefore);

  // A is stopped the way a deploy stops it; B joins once A shut down, and runs what A left.
  process.kill(oldProcess.pid, 'SIGTERM');
  expect(await oldProcess.waitForExit(DRILL_TIMEOUTS.exit)).toBe(0);
  const leaving = fleetEventOf(oldProcess, 'leaving');
  if (leaving === undefined) throw new Error(`the old process exited without leaving\n${oldProcess.describe()}`);
  const joined = await waitForFleetEvent(newProcess, 'joined', DRILL_TIMEOUTS.start);
  expect(joined.at).toBeGreaterThanOrEqual(leaving.at);
  expect((await membersJoinedAt(executorId)) ?? 0).toBeGreaterThanOrEqual(leaving.at - 1);
  await expectSessionsCompleted(env, runs, TOOL_STEPS);
  expect(await newProcess.waitForExit(DRILL_TIMEOUTS.exit)).toBe(0);
  for (const { sessionId, handle } of runs) {
    expect(await DBOS.getWorkflowStatus(handle.workflowId), sessionId).toMatchObject({ status: 'SUCCESS', executorId, queueName: FLEET_QUEUE });
  }

  // Never side by side: every tool A ran started before B joined; every tool B ran started after A shut down.
  const executions = await executionsOf(sessions);
  const byOld = executions.filter((execution) => execution.pid === oldProcess.pid);
  const byNew = executions.filter((execution) => execution.pid === newProcess.pid);
  expect(byOld.length + byNew.length).toBe(executions.length);
  expect(byOld.filter((execution) => execution.startedAt >= joined.at)).toEqual([]);
  expect(byNew.filter((execution) => execution.startedAt < leaving.at)).toEqual([]);
  expect(byNew.length).toBeGreaterThan(0);
  const sessionOfWorkflow = new Map(runs.map(({ sessionId, handle }) => [handle.workflowId, sessionId]));
  const account = accountReRuns(executions, await toolCallsRecorded(env.pool, sessionOfWorkflow, leaving.at), oldProcess.pid);
  expect(account.unexpected).toEqual([]);
  expect(account.finishedReRun).toBe(0);
  expect(account.calls).toBe(sessions.length * TOOL_STEPS);
  expect(account.departedRecorded).toBeGreaterThanOrEqual(sessions.length);
  console.info(`[rolling deploy, lease${drain ? ', drained' : ''}] ${JSON.stringify({ sessions: sessions.length, waitedMs: joined.at - joining.at, handOverMs: joined.at - leaving.at, ...account })}`);
  return { account, byOld, byNew };
}

describe('rolling deploy with the executor-id lease', () => {
  it('SIGTERM without drain: B waits for A; 8 sessions complete once, no recorded tool re-runs, A and B never overlap', async () => {
    const { account } = await rollingDeploy(PLAIN);
    // The lookups the shutdown cut short are the only re-runs, each once (the account's exactness says so).
    expect(account.reRuns).toBe(account.departedCalls - account.departedRecorded);
  }, 90_000);

  it('SIGTERM with drain and hand-over: every lookup A started finishes there, nothing runs twice', async () => {
    const { account, byOld } = await rollingDeploy(DRAINED);
    expect(account.reRuns).toBe(0);
    expect(byOld.filter((execution) => execution.endedAt === null)).toEqual([]);
    expect(account.departedRecorded).toBe(account.departedCalls);
  }, 90_000);
});

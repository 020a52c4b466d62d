/**
 * A worker dies under load. This test process is the API process; three worker processes join the fleet as members
 * (FleetMember: distinct executor ids, deadAfterMs 1.5 s) and share fleet-wide model limits (PostgresModelLimiter, the
 * same limits in each) in front of ONE fake OpenAI server that enforces a provider limit (HTTP 429 above it). The API
 * process enqueues 60 sessions of a two-lookup agent with a slow tool; once one worker has several runs in a tool —
 * some in their second lookup, their first one finished — it is SIGKILLed. Its runs move to the survivors (their
 * sweepers take its lease for dead and re-enqueue its PENDING workflows), every session completes with its answer, no
 * message is lost or stored twice, no tool call whose step was recorded before the kill runs again (each call the
 * killed worker left unrecorded runs exactly once more) and the provider never saw the fleet above its limits.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { describe, expect, it } from 'vitest';
import type { ModelLimit } from '../../../src/limits/model-limits.js';
import { readProviderLoad, setProviderLimits, type FakeProviderLimits } from '../../fixtures/fake-openai/index.js';
import { DRILL_TIMEOUTS } from '../support/drill-flow.js';
import { waitUntil, workflowRowOf } from '../support/durable-probes.js';
import { createLedgerFleetAgent } from '../worker/fleet-agent.js';
import { FLEET_MODEL_KEY } from '../worker/fleet-worker-config.js';
import { enqueueSessions, expectSessionsCompleted, ledgerScenario, lookupCallId, spawnMember, useFleetDrill, type MemberOptions } from './fleet-drill.js';
import { accountReRuns, callKey, ledgerOf, toolCallsRecorded } from './tool-ledger.js';

const SESSIONS = Array.from({ length: 60 }, (_, index) => `dead-${index + 1}`);
const VICTIM_ID = 'fleet-worker-1';
const SURVIVOR_IDS = ['fleet-worker-2', 'fleet-worker-3'];
const WORKER_IDS = [VICTIM_ID, ...SURVIVOR_IDS];
const TOOL_STEPS = 2;
/** Each answer streams for ~150 ms and reports 180 tokens: the fleet's three slots and its budgets are all in play. */
const SCENARIO = { toolSteps: TOOL_STEPS, chunkDelayMs: 20, usage: { inputTokens: 150, outputTokens: 30 } };
/** The fleet's limits, in every worker: concurrency at the provider's, the periods below it. */
const FLEET_LIMIT: ModelLimit = { concurrency: 3, requests: { limit: 18, periodMs: 1_000 }, tokens: { limit: 3_600, periodMs: 1_000 } };
const PROVIDER_LIMIT: FakeProviderLimits = { concurrency: 3, requests: { limit: 22, periodMs: 1_000 }, tokens: { limit: 4_400, periodMs: 1_000 }, retryAfterMs: 200 };
/** Bound of the whole recovery, from the kill until every session completed (generous: it takes a few seconds). */
const RECOVERY_BOUND_MS = 60_000;

const { env, api } = useFleetDrill(
  'crash_fleet_dead',
  SESSIONS.map((sessionId) => [sessionId, ledgerScenario(sessionId, SCENARIO)] as const),
);

const MEMBER: MemberOptions = {
  sessions: SESSIONS,
  workerConcurrency: 6,
  toolDelayMs: 600,
  deadAfterMs: 1_500,
  sweepIntervalMs: 250,
  modelLimits: { [FLEET_MODEL_KEY]: FLEET_LIMIT },
  // No short permitLeaseMs: the killed worker's permits (10 min lease) are released by the survivor that takes it over.
};

/** Open tool executions of a process: all of them, and those in a second lookup (the run's first one recorded). */
async function openToolsOf(pid: number): Promise<{ open: number; secondLookups: number }> {
  const open = (await ledgerOf(env.pool)).filter((execution) => execution.pid === pid && execution.endedAt === null);
  return { open: open.length, secondLookups: open.filter((execution) => execution.toolCallId === lookupCallId(2)).length };
}

async function workflowsOf(executorId: string, status: string): Promise<string[]> {
  const { rows } = await env.pool.query<{ workflow_uuid: string }>('SELECT workflow_uuid FROM dbos.workflow_status WHERE executor_id = $1 AND status = $2', [executorId, status]);
  return rows.map((row) => row.workflow_uuid);
}

/** Model permits a process of `executorId` took and never released (holders start with `<executorId>|`). */
async function permitsHeldBy(executorId: string): Promise<number> {
  const { rows } = await env.pool.query<{ count: string }>(
    "SELECT count(*) AS count FROM __agents_model_calls WHERE released_at IS NULL AND expires_at > clock_timestamp() AND split_part(holder, '|', 1) = $1",
    [executorId],
  );
  return Number(rows[0]?.count ?? 0);
}

async function fleetWaitChunks(): Promise<{ sessions: number; providerWaits: number }> {
  const { rows } = await env.pool.query<{ sessions: string; provider_waits: string }>(
    `SELECT count(DISTINCT stream_id) FILTER (WHERE chunk::jsonb->'data'->>'source' = 'fleet') AS sessions,
       count(*) FILTER (WHERE chunk::jsonb->'data' ? 'waits') AS provider_waits
     FROM __agents_stream_chunks WHERE chunk::jsonb->>'type' = 'custom' AND chunk::jsonb->>'eventName' = 'rate_limited'`,
  );
  return { sessions: Number(rows[0]?.sessions ?? 0), providerWaits: Number(rows[0]?.provider_waits ?? 0) };
}

describe('dead worker: a SIGKILLed fleet member under fleet-wide model limits', () => {
  it('moves its runs to the survivors; 60 sessions complete once, recorded tools never re-run, the provider limit holds', async () => {
    await setProviderLimits(env.llm.baseURL, PROVIDER_LIMIT);
    const workers = WORKER_IDS.map((executorId) => spawnMember(env, executorId, MEMBER));
    for (const worker of workers) await worker.waitForEvent('launched', DRILL_TIMEOUTS.start);
    const [victim, ...survivors] = workers;
    if (victim === undefined) throw new Error('no worker to kill');
    const runs = await enqueueSessions(api(), createLedgerFleetAgent(env.pool), SESSIONS);
    const sessionOfWorkflow = new Map(runs.map(({ sessionId, handle }) => [handle.workflowId, sessionId]));

    // Kill once the victim has at least three tools running, two of them a run's second lookup.
    await waitUntil('the victim in three tools, two of them second lookups', DRILL_TIMEOUTS.signal, async () => {
      const { open, secondLookups } = await openToolsOf(victim.pid);
      return open >= 3 && secondLookups >= 2;
    }, () => victim.describe());
    await victim.kill();
    const killedAt = Date.now();
    const moved = await workflowsOf(VICTIM_ID, 'PENDING');
    expect(moved.length).toBeGreaterThanOrEqual(3);
    const leakedPermits = await permitsHeldBy(VICTIM_ID);
    const openAtKill = (await openToolsOf(victim.pid)).open;

    // The survivors' sweepers take the victim for dead and re-enqueue its runs; a survivor dequeues each.
    await waitUntil('every run of the victim claimed by a survivor', RECOVERY_BOUND_MS, async () => {
      const rows = await Promise.all(moved.map((workflowId) => workflowRowOf(env.pool, workflowId)));
      return rows.every((row) => row !== null && row.executorId !== VICTIM_ID);
    });
    const claimedAfterMs = Date.now() - killedAt;
    // The takeover released the permits the victim held when it died (they would hold their slots for 10 minutes).
    expect(await permitsHeldBy(VICTIM_ID)).toBe(0);
    await expectSessionsCompleted(env, runs, TOOL_STEPS);
    const completedAfterMs = Date.now() - killedAt;
    expect(completedAfterMs).toBeLessThan(RECOVERY_BOUND_MS);
    for (const survivor of survivors) expect(await survivor.waitForExit(DRILL_TIMEOUTS.exit)).toBe(0);

    // Every run ended on a worker; the victim's in-flight runs on a survivor.
    for (const { sessionId, handle } of runs) {
      const status = await DBOS.getWorkflowStatus(handle.workflowId);
      expect(status?.status, sessionId).toBe('SUCCESS');
      expect(moved.includes(handle.workflowId) ? SURVIVOR_IDS : WORKER_IDS, sessionId).toContain(status?.executorId);
    }
    // The dead member is forgotten once it has no pending run left.
    await waitUntil('the dead member forgotten', DRILL_TIMEOUTS.signal, async () => {
      const { rowCount } = await env.pool.query('SELECT 1 FROM helix_fleet.members WHERE executor_id = $1', [VICTIM_ID]);
      return rowCount === 0;
    });

    // Tools: a call recorded before the kill ran once; a call the victim left unrecorded ran exactly once more.
    const movedSessions = new Set(runs.filter(({ handle }) => moved.includes(handle.workflowId)).map(({ sessionId }) => sessionId));
    const recorded = await toolCallsRecorded(env.pool, sessionOfWorkflow, killedAt);
    const committed = await toolCallsRecorded(env.pool, sessionOfWorkflow, Number.POSITIVE_INFINITY);
    const account = accountReRuns(await ledgerOf(env.pool), recorded, victim.pid, committed);
    expect(account.unexpected).toEqual([]);
    expect(account.finishedReRun).toBe(0);
    expect(account.calls).toBe(SESSIONS.length * TOOL_STEPS);
    // The kill point: at least two moved runs had their first lookup recorded; each tool open at the kill re-ran once.
    const movedRecorded = [...movedSessions].filter((sessionId) => recorded.has(callKey(sessionId, lookupCallId(1)))).length;
    expect(movedRecorded).toBeGreaterThanOrEqual(2);
    expect(openAtKill).toBeGreaterThan(0);
    expect(account.reRuns).toBeGreaterThanOrEqual(openAtKill);

    // Model calls: one request per step, except at most one re-sent call of a moved run (in flight at the kill).
    for (const sessionId of SESSIONS) {
      const counts = env.llm.countsByStep(sessionId);
      const extra = counts.reduce((sum, count) => sum + count, 0) - (TOOL_STEPS + 1);
      expect(counts.every((count) => count >= 1), sessionId).toBe(true);
      expect(extra, sessionId).toBeLessThanOrEqual(movedSessions.has(sessionId) ? 1 : 0);
    }

    // The provider never saw the fleet above its limits, and the fleet's limiter did hold calls back.
    const load = await readProviderLoad(env.llm.baseURL);
    expect(load.rateLimited).toBe(0);
    expect(load.maxInFlight).toBeLessThanOrEqual(PROVIDER_LIMIT.concurrency ?? 0);
    expect(load.maxRequests).toBeLessThanOrEqual(PROVIDER_LIMIT.requests?.limit ?? 0);
    expect(load.maxTokens).toBeLessThanOrEqual(PROVIDER_LIMIT.tokens?.limit ?? 0);
    const waits = await fleetWaitChunks();
    expect(waits.sessions).toBeGreaterThan(0);
    expect(waits.providerWaits).toBe(0);
    console.info(
      `[dead worker] ${JSON.stringify({ sessions: SESSIONS.length, moved: moved.length, openAtKill, leakedPermits, claimedAfterMs, completedAfterMs, ...account, load, fleetWaitSessions: waits.sessions })}`,
    );
  }, 120_000);
});

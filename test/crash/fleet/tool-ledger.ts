/**
 * Read-only probes of the fleet drills' tool ledger (one row per tool execution: session, call id, process id, start,
 * end) and of the DBOS step records of the tool calls, and the re-run account a drill asserts on: a tool call whose
 * step was recorded before its process left runs exactly once; one that process started without recording it runs
 * exactly once more, elsewhere; every other call runs once.
 */
import type pg from 'pg';
import { FLEET_TOOL_LEDGER } from '../worker/fleet-worker-config.js';
import { stepOutputOf, stepRecordsOf } from '../support/durable-probes.js';

/**
 * One execution of the ledger agent's tool.
 *
 * @example
 * const open = (await ledgerOf(pool)).filter((execution: ToolExecution) => execution.endedAt === null);
 */
export interface ToolExecution {
  sessionId: string;
  toolCallId: string;
  /** The worker process that ran it. */
  pid: number;
  startedAt: number;
  /** null while it runs, or when its process died (or left) first. */
  endedAt: number | null;
}

/**
 * Every tool execution of the drill, in start order.
 *
 * @example
 * const executions = await ledgerOf(env.pool);
 */
export async function ledgerOf(pool: pg.Pool): Promise<ToolExecution[]> {
  const { rows } = await pool.query<{ session_id: string; tool_call_id: string; pid: number; started_at: Date; ended_at: Date | null }>(
    `SELECT session_id, tool_call_id, pid, started_at, ended_at FROM ${FLEET_TOOL_LEDGER} ORDER BY id`,
  );
  return rows.map((row) => ({
    sessionId: row.session_id,
    toolCallId: row.tool_call_id,
    pid: row.pid,
    startedAt: row.started_at.getTime(),
    endedAt: row.ended_at?.getTime() ?? null,
  }));
}

/**
 * The key of one tool call of one session.
 *
 * @example
 * callKey('dead-1', 'call_1_lookup'); // 'dead-1/call_1_lookup'
 */
export function callKey(sessionId: string, toolCallId: string): string {
  return `${sessionId}/${toolCallId}`;
}

/**
 * The tool calls (as {@link callKey}s) whose ExecuteToolStep DBOS recorded, successfully, no later than `before` (ms),
 * for the given workflows (by workflow id → session id).
 *
 * @example
 * const recorded = await toolCallsRecorded(env.pool, sessionOfWorkflow, killedAt);
 */
export async function toolCallsRecorded(pool: pg.Pool, sessionOfWorkflow: ReadonlyMap<string, string>, before: number): Promise<Set<string>> {
  const recorded = new Set<string>();
  for (const [workflowId, sessionId] of sessionOfWorkflow) {
    for (const step of await stepRecordsOf(pool, workflowId)) {
      if (!step.name.startsWith('ExecuteToolStep') || step.error !== null || step.completedAt === null || step.completedAt > before) continue;
      const output = (await stepOutputOf(step)) as { toolCallId?: unknown } | null;
      if (typeof output?.toolCallId === 'string') recorded.add(callKey(sessionId, output.toolCallId));
    }
  }
  return recorded;
}

/**
 * What the ledger says about re-runs around one process that left (killed or shut down).
 *
 * @example
 * const account: ReRunAccount = accountReRuns(await ledgerOf(pool), recorded, victim.pid);
 * expect(account.unexpected).toEqual([]);
 */
export interface ReRunAccount {
  /** Tool calls executed at all. */
  calls: number;
  /** Calls whose first execution was in the departed process. */
  departedCalls: number;
  /** … of which that execution had ended (its end record written). */
  departedEnded: number;
  /** … of which DBOS had recorded the step before the process left. */
  departedRecorded: number;
  /** Calls executed more than once. */
  reRuns: number;
  /** … of which the step was not recorded, but the result it committed was taken by the recovered run (see accountReRuns). */
  committedTaken: number;
  /** Calls executed more than once although their step was recorded first: none may be. */
  finishedReRun: number;
  /** Calls whose execution count is not the expected one, described. */
  unexpected: string[];
}

/**
 * Account for every tool call's executions: a call first executed by `departedPid` and not in `recorded` must have run
 * twice (the recovered run executes its unrecorded step again, once); every other call exactly once. With
 * `committed` (the calls whose step is recorded now, by anyone), a call that ended in the departed process, ran once
 * and is recorded now had its result committed before the process left, DBOS's row not yet (the public journal's batch
 * record commits a step's effects first): the recovered run takes that result (`committedTaken`) and runs it no more.
 *
 * @example
 * const account = accountReRuns(executions, await toolCallsRecorded(pool, sessionOfWorkflow, leftAt), oldProcess.pid);
 */
export function accountReRuns(
  executions: readonly ToolExecution[],
  recorded: ReadonlySet<string>,
  departedPid: number,
  committed: ReadonlySet<string> = recorded,
): ReRunAccount {
  const byCall = new Map<string, ToolExecution[]>();
  for (const execution of executions) {
    const key = callKey(execution.sessionId, execution.toolCallId);
    byCall.set(key, [...(byCall.get(key) ?? []), execution]);
  }
  const account: ReRunAccount = {
    calls: byCall.size,
    departedCalls: 0,
    departedEnded: 0,
    departedRecorded: 0,
    committedTaken: 0,
    reRuns: 0,
    finishedReRun: 0,
    unexpected: [],
  };
  for (const [key, runs] of byCall) {
    const first = runs[0];
    const departed = first?.pid === departedPid;
    const wasRecorded = recorded.has(key);
    if (departed) account.departedCalls += 1;
    if (departed && first?.endedAt !== null) account.departedEnded += 1;
    if (departed && wasRecorded) account.departedRecorded += 1;
    if (runs.length > 1) account.reRuns += 1;
    if (runs.length > 1 && wasRecorded) account.finishedReRun += 1;
    const taken = departed && !wasRecorded && runs.length === 1 && first?.endedAt !== null && committed.has(key);
    if (taken) account.committedTaken += 1;
    const expected = departed && !wasRecorded && !taken ? 2 : 1;
    if (runs.length !== expected) {
      const pids = runs.map((run) => `${run.pid}${run.endedAt === null ? '(open)' : ''}`).join(',');
      account.unexpected.push(`${key}: ${runs.length} executions (expected ${expected}; recorded ${String(wasRecorded)}; pids ${pids})`);
    }
  }
  return account;
}

/**
 * SIGKILL drill inside a step's record transaction: a step whose only work is one tool call records the agent step's
 * commit (messages, checkpoint, state) and its last stream chunks in one Postgres transaction, which also checks that
 * the run still owns its workflow (the commit is the tool step's record: DBOS gets no row for it). The test holds the
 * session row, so that transaction stops after its chunk append, before the commit's writes; the worker is killed
 * there, and the transaction's connection is terminated with it (pipelined, its COMMIT may already be at the server,
 * which would commit it once the row is free: a step whose COMMIT reached the server is durable). Nothing of it may
 * be visible (no tool_end chunk, no checkpoint, no step record), and recovery in another process runs the tool again
 * (it never completed durably), commits the step once and ends as an uncrashed run does. That transaction is the
 * fused journal's: both workers pin it.
 */
import { describe, expect, it } from 'vitest';
import { useDrill } from './support/drill.js';
import { DRILL_SCENARIOS } from './support/drill-scenarios.js';
import { killAndRecover, startDoomedRun, waitForSignal } from './support/drill-flow.js';
import { checkpointExists, chunkRowCount, stepRecordsOf, toolRunCounts } from './support/durable-probes.js';
import { describeConversation, snapshotSession, storedMessages } from './support/session-snapshot.js';

const BASELINE = 'record-baseline';
const DRILL = 'record-drill';
/** Long enough for the test to take the session row while the tool runs. */
const TOOL_DELAY_MS = 1_500;

const env = useDrill('crash_step_record', {
  sessions: [[DRILL, DRILL_SCENARIOS.betweenSteps]],
  baselines: { executorId: 'crash-record-baseline', sessions: [[BASELINE, DRILL_SCENARIOS.betweenSteps]] },
});

describe('crash drill: SIGKILL inside the record transaction of a tool step that commits its agent step', () => {
  it('leaves nothing of the transaction behind; recovery re-runs the tool and commits the step once', async () => {
    const doomed = await startDoomedRun(env, 'crash-record', DRILL, [], { toolDelayMs: TOOL_DELAY_MS, journal: 'fused' });
    const { worker } = doomed;
    await waitForSignal(worker, 'lookup a running', async () => (await toolRunCounts(env.pool, DRILL)).call_1_lookup_a === 1);

    const holder = await env.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM __agents_sessions WHERE session_id = $1 FOR UPDATE', [DRILL]);
      await waitForSignal(worker, "the tool step's record transaction waiting for the session row", async () => {
        const { rows } = await env.pool.query<{ waiting: string }>(
          `SELECT count(*) AS waiting FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock' AND state = 'active' AND query ILIKE '%__agents_sessions%'`,
        );
        return Number(rows[0]?.waiting ?? 0) >= 1;
      });
      // Inside the open transaction: its chunk append ran, but nothing of it is visible.
      expect(await chunkRowCount(env.pool, DRILL, 'tool_end', 1)).toBe(0);
      expect(await checkpointExists(env.pool, DRILL, `${doomed.runId}:1`)).toBe(false);
      expect((await stepRecordsOf(env.pool, doomed.workflowId)).map((step) => step.name)).not.toContain('ExecuteToolStep:lookup');
      await worker.kill();
      // The connection dies with the process, before the server reads the COMMIT sent behind the blocked statement.
      const { rows: ended } = await env.pool.query<{ ended: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND state = 'active' AND query ILIKE '%__agents_sessions%'`,
      );
      expect(ended.map((row) => row.ended)).toEqual([true]);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
    }

    const { result } = await killAndRecover(env, doomed, { journal: 'fused' });

    const baseline = env.baseline(BASELINE);
    expect(result).toMatchObject({ status: baseline.status, output: baseline.output });
    // The tool never completed durably, so it ran again; its state write and its messages were committed once.
    expect(await toolRunCounts(env.pool, DRILL)).toEqual({ call_1_lookup_a: 2 });
    const drill = await snapshotSession(env, DRILL, result);
    const reference = await snapshotSession(env, BASELINE, baseline);
    expect(drill.facts).toEqual(reference.facts);
    expect(drill.facts).toEqual(['a']);
    const messages = await storedMessages(env, DRILL);
    expect(describeConversation(messages)).toEqual(['user', 'assistant[call_1_lookup_a]', 'tool(call_1_lookup_a)', 'assistant']);
    expect(await checkpointExists(env.pool, DRILL, `${doomed.runId}:1`)).toBe(true);
    expect(await chunkRowCount(env.pool, DRILL, 'tool_start', 1)).toBe(1);
    expect(await chunkRowCount(env.pool, DRILL, 'tool_end', 1)).toBe(1);
    // The tool step committed the agent step with its row, in one transaction: no separate commit step ran.
    const stepNames = (await stepRecordsOf(env.pool, doomed.workflowId)).map((step) => step.name);
    expect(stepNames.filter((name) => name === 'ExecuteToolStep:lookup')).toHaveLength(1);
    expect(stepNames).not.toContain('CommitStep');
    expect(stepNames.filter((name) => name === 'CallLLMStep')).toHaveLength(2);
  }, 120_000);
});

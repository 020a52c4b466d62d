/**
 * Read-only SQL probes of the durable signals a crash drill waits for and asserts on: the tools' execution
 * records, DBOS step records (`dbos.operation_outputs`) and workflow rows, store checkpoints and stream
 * chunk rows. Every wait is bounded and names what it waited for.
 */
import { DBOSJSON, deserializeValue } from '@dbos-inc/dbos-sdk/internal/serialization';
import type pg from 'pg';
import { TOOL_RUNS_TABLE } from '../worker/worker-config.js';

/** Schema of the DBOS system tables (DBOS's default). */
const DBOS_SCHEMA = 'dbos';
const POLL_MS = 25;

/**
 * One recorded execution of a drill tool.
 *
 * @example
 * const runs: ToolRun[] = await toolRunsOf(pool, 's1');
 */
export interface ToolRun {
  toolCallId: string;
  toolName: string;
  /** The worker process that ran it. */
  pid: number;
}

/**
 * One step DBOS recorded for a workflow (a row of `dbos.operation_outputs`).
 *
 * @example
 * const llmSteps = (await stepRecordsOf(pool, workflowId)).filter((step: StepRecord) => step.name === 'CallLLMStep');
 */
export interface StepRecord {
  functionId: number;
  name: string;
  /** The serialized output (null for a step that failed); read it with {@link stepOutputOf}. */
  output: string | null;
  /** The output's format: the fused journal writes some steps as portable JSON, the public journal DBOS's default. */
  serialization: string | null;
  error: string | null;
  startedAt: number | null;
  completedAt: number | null;
}

/**
 * The DBOS row of a workflow (`dbos.workflow_status`).
 *
 * @example
 * const row: WorkflowRow | null = await workflowRowOf(pool, workflowId);
 */
export interface WorkflowRow {
  status: string;
  executorId: string;
  applicationVersion: string | null;
  /** Set when recovery re-enqueued the workflow (DBOS recovers through its internal queue). */
  queueName: string | null;
  /** When the current execution was dequeued (null until claimed). */
  startedAt: number | null;
  recoveryAttempts: number;
  output: string | null;
}

/**
 * Create the tools' execution table (the parent does it once, before any worker starts).
 *
 * @example
 * await createToolRunsTable(pool);
 */
export async function createToolRunsTable(pool: pg.Pool): Promise<void> {
  await pool.query(`CREATE TABLE IF NOT EXISTS ${TOOL_RUNS_TABLE} (
    position     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id   text NOT NULL,
    tool_call_id text NOT NULL,
    tool_name    text NOT NULL,
    pid          integer NOT NULL,
    attempt_at   timestamptz NOT NULL DEFAULT clock_timestamp()
  )`);
}

/**
 * Every recorded tool execution of a session, in order.
 *
 * @example
 * const runs = await toolRunsOf(pool, 's1');
 */
export async function toolRunsOf(pool: pg.Pool, sessionId: string): Promise<ToolRun[]> {
  const { rows } = await pool.query<{ tool_call_id: string; tool_name: string; pid: number }>(
    `SELECT tool_call_id, tool_name, pid FROM ${TOOL_RUNS_TABLE} WHERE session_id = $1 ORDER BY position`,
    [sessionId],
  );
  return rows.map((row) => ({ toolCallId: row.tool_call_id, toolName: row.tool_name, pid: row.pid }));
}

/**
 * Executions per tool call id of a session.
 *
 * @example
 * expect(await toolRunCounts(pool, 's1')).toEqual({ call_1_lookup_a: 1 });
 */
export async function toolRunCounts(pool: pg.Pool, sessionId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const run of await toolRunsOf(pool, sessionId)) counts[run.toolCallId] = (counts[run.toolCallId] ?? 0) + 1;
  return counts;
}

/**
 * The steps DBOS recorded for a workflow, by function id.
 *
 * @example
 * const steps = await stepRecordsOf(pool, workflowId);
 */
export async function stepRecordsOf(pool: pg.Pool, workflowId: string): Promise<StepRecord[]> {
  const { rows } = await pool.query<{
    function_id: number;
    function_name: string;
    output: string | null;
    serialization: string | null;
    error: string | null;
    started_at_epoch_ms: string | null;
    completed_at_epoch_ms: string | null;
  }>(
    `SELECT function_id, function_name, output, serialization, error, started_at_epoch_ms, completed_at_epoch_ms
     FROM ${DBOS_SCHEMA}.operation_outputs WHERE workflow_uuid = $1 ORDER BY function_id`,
    [workflowId],
  );
  return rows.map((row) => ({
    functionId: row.function_id,
    name: row.function_name,
    output: row.output,
    serialization: row.serialization,
    error: row.error,
    startedAt: row.started_at_epoch_ms === null ? null : Number(row.started_at_epoch_ms),
    completedAt: row.completed_at_epoch_ms === null ? null : Number(row.completed_at_epoch_ms),
  }));
}

/**
 * A recorded step's output as DBOS deserializes it, whichever format the journal recorded it in (null when none).
 *
 * @example
 * expect(await stepOutputOf(toolStep)).toMatchObject({ toolCallId: 'call_1_lookup_a', success: true });
 */
export async function stepOutputOf(step: StepRecord): Promise<unknown> {
  return step.output === null ? null : deserializeValue(step.output, step.serialization, DBOSJSON);
}

/**
 * True when DBOS recorded a completed ExecuteToolStep for `toolCallId` (its output names the call).
 *
 * @example
 * await waitUntil('lookup a recorded', 20_000, () => toolStepRecorded(pool, workflowId, 'call_1_lookup_a'));
 */
export async function toolStepRecorded(pool: pg.Pool, workflowId: string, toolCallId: string): Promise<boolean> {
  const steps = await stepRecordsOf(pool, workflowId);
  return steps.some((step) => step.name.startsWith('ExecuteToolStep') && step.error === null && (step.output ?? '').includes(`"${toolCallId}"`));
}

/**
 * The workflow's DBOS status row, or null.
 *
 * @example
 * expect((await workflowRowOf(pool, workflowId))?.status).toBe('SUCCESS');
 */
export async function workflowRowOf(pool: pg.Pool, workflowId: string): Promise<WorkflowRow | null> {
  const { rows } = await pool.query<{
    status: string;
    executor_id: string;
    application_version: string | null;
    queue_name: string | null;
    started_at_epoch_ms: string | null;
    recovery_attempts: string | null;
    output: string | null;
  }>(
    `SELECT status, executor_id, application_version, queue_name, started_at_epoch_ms, recovery_attempts, output
     FROM ${DBOS_SCHEMA}.workflow_status WHERE workflow_uuid = $1`,
    [workflowId],
  );
  const row = rows[0];
  if (row === undefined) return null;
  return {
    status: row.status,
    executorId: row.executor_id,
    applicationVersion: row.application_version,
    queueName: row.queue_name,
    startedAt: row.started_at_epoch_ms === null ? null : Number(row.started_at_epoch_ms),
    recoveryAttempts: Number(row.recovery_attempts ?? 0),
    output: row.output,
  };
}

/**
 * True when the store wrote checkpoint `checkpointId` for the session (the step's commit happened).
 *
 * @example
 * await checkpointExists(pool, 's1', `${runId}:1`);
 */
export async function checkpointExists(pool: pg.Pool, sessionId: string, checkpointId: string): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM __agents_checkpoints WHERE session_id = $1 AND checkpoint_id = $2', [sessionId, checkpointId]);
  return (rowCount ?? 0) > 0;
}

/**
 * Chunk rows of a stream with this type (and step, when given), as stored right now.
 *
 * @example
 * await chunkRowCount(pool, 's1', 'text_delta', 2);
 */
export async function chunkRowCount(pool: pg.Pool, streamId: string, type: string, step?: number): Promise<number> {
  const { rows } = await pool.query<{ count: string }>(
    `SELECT count(*) AS count FROM __agents_stream_chunks WHERE stream_id = $1 AND chunk::jsonb->>'type' = $2 AND ($3::int IS NULL OR step = $3::int)`,
    [streamId, type, step ?? null],
  );
  return Number(rows[0]?.count ?? 0);
}

/**
 * Usage rows of a session (`__agents_usage`), as `kind:name:step` keys in write order.
 *
 * @example
 * expect(await usageRowsOf(pool, 's1')).toEqual(['llm:fake-model:1', 'tool:lookup:1']);
 */
export async function usageRowsOf(pool: pg.Pool, sessionId: string): Promise<string[]> {
  const { rows } = await pool.query<{ kind: string; name: string; step: number | null }>(
    'SELECT kind, name, step FROM __agents_usage WHERE session_id = $1 ORDER BY id',
    [sessionId],
  );
  return rows.map((row) => `${row.kind}:${row.name}:${String(row.step)}`);
}

/**
 * Poll `check` until it is true; fail after `timeoutMs` naming `what` (plus `context()`, e.g. worker output).
 *
 * @example
 * await waitUntil('the checkpoint of step 1', 20_000, () => checkpointExists(pool, 's1', `${runId}:1`));
 */
export async function waitUntil(what: string, timeoutMs: number, check: () => Promise<boolean>, context: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error; // e.g. the DBOS tables do not exist until the first worker launched
    }
    if (Date.now() > deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}\n${context()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * SIGKILL drills at every point of a transactional tool call (`defineTransactionalTool`, real processes, DBOS and
 * Postgres; the drill database is both the app database and the DBOS system database): before its transaction
 * begins, inside it after the tool's insert, after its COMMIT before DBOS records the operation, and right after
 * the operation is recorded. After recovery in a process that never calls execute(), the app table holds the fact
 * exactly once and the result the model sees is the committed execution's (its row id and pid): replayed from
 * the completion record when the kill came after the commit, never recomputed.
 */
import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../src/types/message.js';
import { useDrill } from './support/drill.js';
import { DRILL_SCENARIOS } from './support/drill-scenarios.js';
import { killAndRecover, replayInPlace, startDoomedRun, startPausedRun, waitForSignal, type DoomedRun } from './support/drill-flow.js';
import { chunkRowCount, stepRecordsOf, toolRunCounts } from './support/durable-probes.js';
import { describeConversation, storedMessages } from './support/session-snapshot.js';
import { APP_FACTS_TABLE, type PausePoint } from './worker/worker-config.js';

const CALL = 'call_1_record_a';
const STEP_NAME = 'TransactionalToolStep';

const env = useDrill('crash_txtools', {
  tables: `CREATE TABLE ${APP_FACTS_TABLE} (
    id serial PRIMARY KEY, session_id text NOT NULL, tool_call_id text NOT NULL, fact_key text NOT NULL, pid integer NOT NULL)`,
});

interface FactRow {
  id: number;
  pid: number;
  fact_key: string;
}

async function factsOf(sessionId: string): Promise<FactRow[]> {
  const { rows } = await env.pool.query<FactRow>(`SELECT id, pid, fact_key FROM ${APP_FACTS_TABLE} WHERE session_id = $1 ORDER BY id`, [sessionId]);
  return rows;
}

async function operationRecorded(workflowId: string): Promise<boolean> {
  return (await stepRecordsOf(env.pool, workflowId)).some((step) => step.name === STEP_NAME && step.error === null);
}

async function completionRows(workflowId: string): Promise<number> {
  const { rowCount } = await env.pool.query('SELECT 1 FROM dbos.transaction_completion WHERE workflow_id = $1', [workflowId]);
  return rowCount ?? 0;
}

function toolResultOf(messages: readonly StoredMessage[]): unknown {
  const message = messages.find((candidate) => candidate.role === 'tool');
  return message === undefined ? undefined : (message as { content?: unknown }).content;
}

async function startPaused(sessionId: string, point: PausePoint): Promise<DoomedRun> {
  env.llm.register(sessionId, DRILL_SCENARIOS.transactionalRecord, { crash: true });
  // Chunks stay buffered until a step flushes them: the killed worker dies with its tool_start unwritten.
  const buffered = { streamFlushIntervalMs: 600_000 };
  return startPausedRun(env, sessionId, { point, toolCallId: CALL }, { agent: 'transactional', ...buffered });
}

/** Recover the doomed run and check what every drill must hold: one fact, the model saw the committed execution. */
async function recoverAndCheck(doomed: DoomedRun, expectedPid: (recovererPid: number) => number): Promise<FactRow> {
  const { worker, result } = await killAndRecover(env, doomed, { agent: 'transactional' });
  expect(result).toMatchObject({ status: 'completed', output: 'Fact a is recorded.', stepCount: 2 });
  const facts = await factsOf(doomed.sessionId);
  expect(facts).toHaveLength(1);
  const [fact] = facts as [FactRow];
  expect(fact.pid).toBe(expectedPid(worker.pid));
  const messages = await storedMessages(env, doomed.sessionId);
  expect(describeConversation(messages)).toEqual(['user', `assistant[${CALL}]`, `tool(${CALL})`, 'assistant']);
  expect(toolResultOf(messages)).toEqual({ key: 'a', rowId: fact.id, pid: fact.pid });
  expect(env.llm.countOf(doomed.sessionId, 1)).toBe(1);
  // Keyed chunks: a re-run or replay does not show the call twice.
  expect(await chunkRowCount(env.pool, doomed.sessionId, 'tool_start')).toBe(1);
  expect(await chunkRowCount(env.pool, doomed.sessionId, 'tool_end')).toBe(1);
  // The workflow completed: DBOS cleared the data source's completion rows.
  expect(await completionRows(doomed.workflowId)).toBe(0);
  return fact;
}

describe('crash drill: SIGKILL at every point of a transactional tool call', () => {
  it('before the transaction begins: nothing was written; the recovered run executes the tool once', async () => {
    const doomed = await startPaused('tx-before', 'before_transaction');
    expect(await factsOf('tx-before')).toEqual([]);
    expect(await toolRunCounts(env.pool, 'tx-before')).toEqual({});

    await recoverAndCheck(doomed, (recoverer) => recoverer);
    expect(await toolRunCounts(env.pool, 'tx-before')).toEqual({ [CALL]: 1 });
  }, 120_000);

  it('inside the transaction after the insert: the uncommitted row dies with the process; the re-run writes the only row', async () => {
    const doomed = await startPaused('tx-inside', 'inside_transaction');
    expect(await toolRunCounts(env.pool, 'tx-inside')).toEqual({ [CALL]: 1 });
    expect(await factsOf('tx-inside')).toEqual([]); // written, not committed

    await recoverAndCheck(doomed, (recoverer) => recoverer);
    expect(await toolRunCounts(env.pool, 'tx-inside')).toEqual({ [CALL]: 2 });
  }, 120_000);

  it('after COMMIT, before DBOS records the operation: the tool never runs again and the committed result is replayed', async () => {
    const doomed = await startPaused('tx-committed', 'after_commit');
    const [committed] = await factsOf('tx-committed');
    expect(committed?.pid).toBe(doomed.worker.pid);
    expect(await operationRecorded(doomed.workflowId)).toBe(false);
    expect(await completionRows(doomed.workflowId)).toBe(1);

    const fact = await recoverAndCheck(doomed, () => doomed.worker.pid);
    expect(fact.id).toBe(committed?.id);
    expect(await toolRunCounts(env.pool, 'tx-committed')).toEqual({ [CALL]: 1 });

    // Replay: the completed workflow re-run in place answers every operation from its record.
    const stepsBefore = await stepRecordsOf(env.pool, doomed.workflowId);
    const { result } = await replayInPlace(env, 'tx-committed-replay', 'tx-committed', { agent: 'transactional' });
    expect(result).toMatchObject({ status: 'completed', output: 'Fact a is recorded.', stepCount: 2 });
    expect(await factsOf('tx-committed')).toEqual([fact]);
    expect(await toolRunCounts(env.pool, 'tx-committed')).toEqual({ [CALL]: 1 });
    expect(env.llm.countsByStep('tx-committed')).toEqual([1, 1]);
    expect((await stepRecordsOf(env.pool, doomed.workflowId)).map((step) => step.name)).toEqual(stepsBefore.map((step) => step.name));
  }, 150_000);

  it('right after DBOS recorded the operation: the recovered run reads the recorded outcome and only asks the model again', async () => {
    env.llm.register('tx-recorded', DRILL_SCENARIOS.transactionalThenHang, { crash: true });
    const doomed = await startDoomedRun(env, 'tx-recorded', 'tx-recorded', [], { agent: 'transactional' });
    await waitForSignal(
      doomed.worker,
      'the transactional operation recorded and step 2 asking the model',
      async () => (await operationRecorded(doomed.workflowId)) && env.llm.countOf('tx-recorded', 2) === 1,
    );

    await recoverAndCheck(doomed, () => doomed.worker.pid);
    expect(await toolRunCounts(env.pool, 'tx-recorded')).toEqual({ [CALL]: 1 });
    expect(env.llm.countsByStep('tx-recorded')).toEqual([1, 2]);
  }, 120_000);
});

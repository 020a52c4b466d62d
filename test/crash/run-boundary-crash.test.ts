/**
 * SIGKILL drills at a run's start, its begin, its first model call and its finish (real processes, DBOS and Postgres): the worker
 * stops with the step's writes done and its DBOS record not (handed to the record, uncommitted — fused journal: the
 * transaction of DBOS's row; public: the batch record's, before it); at the first model call, BeginRunStep's row still rides with that call's record (fused). After recovery in a process that never calls execute(), the turn is whole and nothing is repeated: one user
 * message, one answer, one output chunk, one run, the model called once (the finish drill's model step was recorded
 * before the kill; a call in flight at the kill, as the one the begin drill's run made ahead of its first LLM step, is
 * made once more, and its streamed delta reset). Killed after the finish's record, before its workflow returned: the
 * workflow is already SUCCESS on the fused journal (its end rides with the finish's record) and PENDING on the public
 * one, whose recovery replays every step and lets DBOS write the end; either way nothing runs again.
 */
import { describe, expect, it } from 'vitest';
import { activeJournal } from '../../src/journal/journal.js';
import { useDrill } from './support/drill.js';
import { scenarioByStep } from './support/drill-scenarios.js';
import {
  DRILL_TIMEOUTS,
  expectCleanExit,
  killAndRecover,
  outcomeOf,
  spawnWorker,
  startDoomedRun,
  startPausedRun,
  waitForSignal,
  type DoomedRun,
} from './support/drill-flow.js';
import type { AgentResult } from '../../src/index.js';
import { chunkRowCount, stepRecordsOf } from './support/durable-probes.js';
import { readStreamWithResets, textOfStep } from './support/stream-view.js';
import { describeConversation, storedMessages } from './support/session-snapshot.js';
import type { PausePoint } from './worker/worker-config.js';

const env = useDrill('crash_boundary');
const ANSWER = 'Nothing to look up: all done.';
const oneStep = scenarioByStep([{ type: 'text', text: ANSWER }]);

async function startPaused(sessionId: string, point: PausePoint): Promise<DoomedRun> {
  env.llm.register(sessionId, oneStep, { crash: true });
  return startPausedRun(env, sessionId, { point, toolCallId: sessionId });
}

/**
 * Recover the doomed run and check the turn is whole and nothing was repeated: `calls` model calls in all (a call in
 * flight at the kill is made once more), and its text streamed once (a killed call's chunk reset).
 */
async function recoverAndCheck(doomed: DoomedRun, calls = 1): Promise<void> {
  const { result } = await killAndRecover(env, doomed);
  await expectWhole(doomed, result, calls);
}

/** The turn is whole after recovery: its result, one answer, `calls` model calls, its text streamed once. */
async function expectWhole(doomed: DoomedRun, result: AgentResult, calls = 1): Promise<void> {
  expect(result).toMatchObject({ status: 'completed', output: ANSWER, stepCount: 1 });
  const messages = await storedMessages(env, doomed.sessionId);
  expect(describeConversation(messages)).toEqual(['user', 'assistant']);
  expect(env.llm.countOf(doomed.sessionId)).toBe(calls);
  expect(textOfStep((await readStreamWithResets(env.streamManager, doomed.sessionId, 10_000)).visible, 1)).toBe(ANSWER);
  expect(await chunkRowCount(env.pool, doomed.sessionId, 'output')).toBe(1);
  expect(await env.stateStore.loadState(doomed.sessionId)).toMatchObject({ status: 'completed', output: ANSWER });
  expect((await env.stateStore.listRuns(doomed.sessionId)).runs.map((run) => run.status)).toEqual(['completed']);
  expect(await env.streamManager.getInfo(doomed.sessionId)).toMatchObject({ status: 'ended', output: ANSWER });
}

describe('crash drill: SIGKILL at a run’s begin and finish', () => {
  it('started: killed with the start committed, before its workflow ran; the run starts once and answers once', async () => {
    const sessionId = 'boundary-start';
    env.llm.register(sessionId, oneStep, { crash: true });
    // execute() never returns here: the worker stops inside it, the run recorded.
    const pauseAt = { point: 'start_recorded' as const, toolCallId: sessionId };
    const worker = spawnWorker(env, 'start', sessionId, [sessionId], { pauseAt }, 'doomed');
    await worker.waitForEvent('paused', DRILL_TIMEOUTS.signal, (event) => event.point === 'start_recorded');
    const run = await env.stateStore.getCurrentRun(sessionId);
    if (run?.workflowId === undefined) throw new Error('the start recorded no run');
    const doomed: DoomedRun = { worker, executorId: sessionId, sessionId, runId: run.runId, workflowId: run.workflowId };
    expect(describeConversation(await storedMessages(env, sessionId)), 'at the kill').toEqual(['user']);
    expect(env.llm.countOf(sessionId), 'at the kill').toBe(0);
    // Fused: DBOS's record of the workflow's start committed with the run's writes (one transaction), so DBOS recovers
    // it. Public: DBOS has not recorded it; the caller's repeated execute() finds the run and starts its workflow.
    const fused = activeJournal() === 'fused';
    expect(await workflowStatusOf(doomed.workflowId), 'at the kill').toBe(fused ? 'PENDING' : undefined);
    if (fused) {
      await recoverAndCheck(doomed);
    } else {
      await doomed.worker.kill();
      const again = spawnWorker(env, 'start', sessionId, [sessionId]);
      const { result } = await outcomeOf(again, sessionId);
      await expectCleanExit(again);
      await expectWhole(doomed, result);
    }
    expect(await workflowStatusOf(doomed.workflowId)).toBe('SUCCESS');
  }, 120_000);

  it('begin: killed inside the begin, before its record, its first model call made meanwhile; the recovered run begins once and answers once', async () => {
    const doomed = await startPaused('boundary-begin', 'begin_deferred');
    // The run's first model call goes out once DBOS recorded the workflow's start, beside the begin (see
    // startFirstCallAhead); its first delta is in the stream already.
    await waitForSignal(doomed.worker, 'the first delta of the call made ahead', async () => (await chunkRowCount(env.pool, 'boundary-begin', 'text_delta')) === 1);
    expect(env.llm.countOf('boundary-begin'), 'at the kill').toBe(1);
    // The start stored the turn with its run (one transaction, both journals): the begin has nothing left to write.
    expect(describeConversation(await storedMessages(env, 'boundary-begin')), 'at the kill').toEqual(['user']);
    expect(await stepRecordsOf(env.pool, doomed.workflowId), 'at the kill').toEqual([]);
    await recoverAndCheck(doomed, 2); // the call in flight at the kill, made once more by the recovered run
  }, 120_000);

  it('first model call: killed while it hangs, the begin’s record riding with it (fused); the recovered run begins again and answers once', async () => {
    const sessionId = 'boundary-first-call';
    env.llm.register(sessionId, scenarioByStep([(attempt, crash) => (crash && attempt === 1 ? { type: 'hang' } : { type: 'text', text: ANSWER })]), { crash: true });
    const doomed = await startDoomedRun(env, sessionId, sessionId, []);
    // Fused: BeginRunStep's row waits for the model step's record; public: DBOS records it once the begin (beside the
    // call, made ahead of the first LLM step) is done.
    const fused = activeJournal() === 'fused';
    const begun = async (): Promise<boolean> => fused || (await stepRecordsOf(env.pool, doomed.workflowId)).length > 0;
    await waitForSignal(doomed.worker, 'the first model call', async () => env.llm.countOf(sessionId) === 1 && (await begun()));
    expect((await stepRecordsOf(env.pool, doomed.workflowId)).map((step) => step.name), 'at the kill').toEqual(fused ? [] : ['BeginRunStep']);
    expect(describeConversation(await storedMessages(env, sessionId)), 'at the kill').toEqual(['user']);
    const { result } = await killAndRecover(env, doomed);
    expect(result).toMatchObject({ status: 'completed', output: ANSWER, stepCount: 1 });
    expect(env.llm.countOf(sessionId)).toBe(2); // the killed call once more, nothing else
    expect((await stepRecordsOf(env.pool, doomed.workflowId)).map((step) => [step.functionId, step.name])).toEqual([
      [0, 'BeginRunStep'],
      [1, 'CallLLMStep'],
      [2, 'FinishRunStep'],
    ]);
    expect(describeConversation(await storedMessages(env, sessionId))).toEqual(['user', 'assistant']);
    expect((await env.stateStore.listRuns(sessionId)).runs.map((run) => run.status)).toEqual(['completed']);
  }, 120_000);

  it('finish: killed with the finish’s writes done and its record not; the recovered run finishes once, the model is not asked again', async () => {
    const doomed = await startPaused('boundary-finish', 'finish_deferred');
    expect(env.llm.countOf('boundary-finish')).toBe(1);
    // The outcome waits for the record's commit (public journal: its batch record's, at the end of the step's body).
    expect((await env.stateStore.loadState('boundary-finish'))?.status, 'at the kill').toBe('active');
    expect(await chunkRowCount(env.pool, 'boundary-finish', 'output'), 'at the kill').toBe(0);
    await recoverAndCheck(doomed);
  }, 120_000);

  it('finished: killed after the finish’s record, before its workflow returned; nothing runs again, the end recorded once', async () => {
    const doomed = await startPaused('boundary-finished', 'finish_recorded');
    expect(env.llm.countOf('boundary-finished')).toBe(1);
    expect((await env.stateStore.loadState('boundary-finished'))?.status, 'at the kill').toBe('completed');
    // Fused: the workflow's end was recorded with the finish; public: DBOS writes it once the function returns.
    const fused = activeJournal() === 'fused';
    expect(await workflowStatusOf(doomed.workflowId), 'at the kill').toBe(fused ? 'SUCCESS' : 'PENDING');
    await recoverAndCheck(doomed);
    expect(await workflowStatusOf(doomed.workflowId)).toBe('SUCCESS');
    const steps = (await stepRecordsOf(env.pool, doomed.workflowId)).map((step) => step.name);
    expect(steps).toEqual(['BeginRunStep', 'CallLLMStep', 'FinishRunStep']);
  }, 120_000);
});

async function workflowStatusOf(workflowId: string): Promise<string | undefined> {
  const statusOf = 'SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1';
  const { rows } = await env.pool.query<{ status: string }>(statusOf, [workflowId]);
  return rows[0]?.status;
}

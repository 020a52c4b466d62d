/**
 * SIGKILL drills of companions (persistent sub-agents): killed during a blocking companion's turn, killed between a
 * continuation's marker CAS and its workflow start, killed during the parent turn that receives a non-blocking
 * companion's outcome, and — for a blocking companion that waits for a human past the warm window — killed while
 * the parent is parked awaiting it and again right after the answer was submitted against the root (in the
 * resumed companion turn, or between the resume's marker CAS and its workflow start). After restart: no double
 * start, the consult appended once, the parent gets one result.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readPersistentMarker } from '../../src/orchestration/persistent-session.js';
import type { StoredMessage } from '../../src/types/message.js';
import { useDrill } from './support/drill.js';
import { waitForSignal } from './support/drill-flow.js';
import { COMPANION_DRILL_TABLES, type CompanionWorkerConfig } from './worker/companion-worker-config.js';

const SCRIPT = fileURLToPath(new URL('./worker/companion-worker.ts', import.meta.url));

const drill = useDrill('crash_companions', { tables: COMPANION_DRILL_TABLES, setupTimeoutMs: 60_000 });
const { workers, count } = drill;

const config = (extra: Omit<CompanionWorkerConfig, 'databaseUrl'>): CompanionWorkerConfig => ({ databaseUrl: drill.database.url, ...extra });

async function toolResults(sessionId: string, toolCallId: string): Promise<Array<Extract<StoredMessage, { role: 'tool' }>>> {
  const { messages } = await drill.stateStore.getMessages(sessionId);
  return messages.filter((message): message is Extract<StoredMessage, { role: 'tool' }> => message.role === 'tool' && message.toolCallId === toolCallId);
}

async function userTexts(sessionId: string): Promise<unknown[]> {
  return (await drill.stateStore.getMessages(sessionId)).messages.filter((message) => message.role === 'user').map((message) => message.content);
}

async function workflows(pattern: string): Promise<string[]> {
  const rows = await drill.pool.query<{ workflow_uuid: string }>('SELECT workflow_uuid FROM dbos.workflow_status WHERE workflow_uuid LIKE $1 ORDER BY created_at', [pattern]);
  return rows.rows.map((row) => row.workflow_uuid);
}

describe('crash drill: SIGKILL around companions', () => {
  it('killed during a blocking companion turn: after recovery the child turn runs once and the parent gets one result', async () => {
    const sessionId = 'cc-1';
    const doomed = workers.spawn('doomed companion worker', 'cc-exec-1', config({ mode: 'start', sessionId, messages: ['spawn r q1'], hangOn: 'q1' }), SCRIPT);
    const started = await doomed.waitForEvent('started', 30_000);
    await waitForSignal(doomed, 'the companion model call', async () => (await count("SELECT count(*) FROM companion_llm_calls WHERE agent_type = 'researcher'", [])) === 1);
    await doomed.kill();

    const recoverer = workers.spawn('recover companion worker', 'cc-exec-1', config({ mode: 'recover', sessionId, messages: [], runIds: [started.runId] }), SCRIPT);
    const result = await recoverer.waitForEvent('result', 45_000);
    expect(result.result).toMatchObject({ status: 'completed', output: 'parent done' });
    expect(await recoverer.waitForExit(15_000)).toBe(0);

    const [answer, ...more] = await toolResults(sessionId, 'c-spawn_r_q1');
    expect(more).toHaveLength(0);
    expect(answer?.isError).not.toBe(true);
    expect(answer?.content).toEqual({ name: 'r', status: 'completed', output: { answer: 're: q1' } });
    expect(await workflows('cc-1-agent-r%')).toEqual(['cc-1-agent-r-spawn-c-spawn_r_q1']);
    const { runs } = await drill.stateStore.listRuns('cc-1-agent-r');
    expect(runs.map((run) => run.status)).toEqual(['completed']);
    expect(await userTexts('cc-1-agent-r')).toEqual(['q1']);
    expect((await drill.stateStore.getSubSessionRefs(sessionId)).map((ref) => [ref.name, ref.status, ref.completionDelivered])).toEqual([['r', 'completed', true]]);
  }, 120_000);

  it('killed between a continuation CAS and its workflow start: one continuation, the consult appended once, one result', async () => {
    const sessionId = 'cc-2';
    const child = 'cc-2-agent-r';
    const first = workers.spawn('first turn worker', 'cc-exec-2', config({ mode: 'start', sessionId, messages: ['spawn r q1'], persistentWarmWindowMs: 200, waitParked: [child] }), SCRIPT);
    expect(await first.waitForExit(45_000)).toBe(0);

    const doomed = workers.spawn('doomed continuation worker', 'cc-exec-3', config({ mode: 'start', sessionId, messages: ['ask r q2'], hangAfterMarkerCas: '-continue-', persistentWarmWindowMs: 200 }), SCRIPT);
    const started = await doomed.waitForEvent('started', 30_000);
    await waitForSignal(doomed, 'the continuation CAS', async () => readPersistentMarker((await drill.stateStore.loadState(child))?.metadata)?.workflowId === `${child}-continue-c-ask_r_q2`);
    // The worker now hangs inside the same step, before the body can start the continuation's workflow.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await workflows(`${child}-continue%`)).toEqual([]);
    await doomed.kill();

    const recoverer = workers.spawn('recover continuation worker', 'cc-exec-3', config({ mode: 'recover', sessionId, messages: [], runIds: [started.runId], persistentWarmWindowMs: 200, waitParked: [child] }), SCRIPT);
    expect((await recoverer.waitForEvent('result', 45_000)).result).toMatchObject({ status: 'completed', output: 'parent done' });
    expect(await recoverer.waitForExit(30_000)).toBe(0);

    expect(await workflows(`${child}-continue%`)).toEqual([`${child}-continue-c-ask_r_q2`]);
    expect(await userTexts(child)).toEqual(['q1', 'q2']);
    const { runs } = await drill.stateStore.listRuns(child);
    expect(runs.map((run) => [run.status, run.workflowId])).toEqual([
      ['completed', `${child}-spawn-c-spawn_r_q1`],
      ['completed', `${child}-continue-c-ask_r_q2`],
    ]);
    const results = await toolResults(sessionId, 'c-ask_r_q2');
    expect(results.map((message) => message.content)).toEqual([{ name: 'r', status: 'completed', output: { answer: 're: q2' } }]);
    expect(await count("SELECT count(*) FROM companion_llm_calls WHERE agent_type = 'researcher' AND user_text = 'q2'", [])).toBe(1);
  }, 120_000);

  it("killed in the parent turn that receives a non-blocking companion's outcome: delivered exactly once", async () => {
    const sessionId = 'cc-3';
    const doomed = workers.spawn('doomed delivery worker', 'cc-exec-4', config({ mode: 'start', sessionId, messages: ['bg w hello', 'turn two'], hangOn: 'turn two' }), SCRIPT);
    const first = await doomed.waitForEvent('started', 30_000);
    const second = await doomed.waitForEvent('started', 30_000, (event) => event.runId !== first.runId);
    await waitForSignal(doomed, 'the second parent turn model call', async () => (await count("SELECT count(*) FROM companion_llm_calls WHERE session_id = $1 AND user_text = 'turn two'", [sessionId])) === 1);
    await doomed.kill();

    const recoverer = workers.spawn('recover delivery worker', 'cc-exec-4', config({ mode: 'recover', sessionId, messages: [], runIds: [second.runId] }), SCRIPT);
    expect((await recoverer.waitForEvent('result', 45_000)).result).toMatchObject({ status: 'completed', output: 'echo: turn two' });
    expect(await recoverer.waitForExit(30_000)).toBe(0);

    const { messages } = await drill.stateStore.getMessages(sessionId);
    const delivered = messages.filter((message) => message.id?.startsWith('companion:'));
    expect(delivered).toHaveLength(1);
    expect(String(delivered[0]?.content)).toContain('"seen":"hello"');
    // Both model calls of the second turn (the killed one and the recovered one) saw it once.
    const seen = await drill.pool.query<{ delivered: number }>("SELECT delivered FROM companion_llm_calls WHERE session_id = $1 AND user_text = 'turn two'", [sessionId]);
    expect(seen.rows.map((row) => row.delivered)).toEqual([1, 1]);
    expect((await drill.stateStore.getSubSessionRefs(sessionId)).map((ref) => [ref.name, ref.status, ref.completionDelivered])).toEqual([['w', 'completed', true]]);
  }, 120_000);

  describe('a blocking companion waiting for a human, parent parked', () => {
    const child = (sessionId: string): string => `${sessionId}-agent-k`;

    /** A worker parks the parent (the clerk asks a human past the warm window) and is killed while it is parked. */
    async function parkAndKill(sessionId: string, executorId: string): Promise<void> {
      const parking = workers.spawn('parking worker', executorId, config({ mode: 'start', sessionId, messages: ['human k q1'], hitlWarmWindowMs: 200, persistentWarmWindowMs: 200, holdOpen: true }), SCRIPT);
      await parking.waitForEvent('started', 30_000);
      await waitForSignal(parking, 'the parent parked awaiting children', async () => (await drill.stateStore.getCurrentRun(sessionId))?.status === 'suspended_awaiting_children');
      await waitForSignal(parking, 'the companion parked', async () => readPersistentMarker((await drill.stateStore.loadState(child(sessionId)))?.metadata)?.endReason === 'suspended');
      // Parked: the companion's workflow has returned too (it records `closed` a moment before its own result).
      await waitForSignal(parking, "the companion's workflow ended", async () => (await count("SELECT count(*) FROM dbos.workflow_status WHERE workflow_uuid LIKE $1 AND status = 'PENDING'", [`${child(sessionId)}%`])) === 0);
      await parking.kill();
    }

    /** After recovery: one companion turn result, delivered once to the parent's blocked call, consult once, nothing stuck. */
    async function expectDeliveredOnce(sessionId: string): Promise<void> {
      const results = await toolResults(sessionId, 'c-human_k_q1');
      expect(results.map((message) => [message.content, message.isError === true])).toEqual([[{ name: 'k', status: 'completed', output: { confirmed: { yes: 1 } } }, false]]);
      expect(await userTexts(child(sessionId))).toEqual(['q1']);
      const { runs } = await drill.stateStore.listRuns(child(sessionId));
      expect(runs.map((run) => run.status)).toEqual(['suspended_client_tool', 'completed']);
      expect(await workflows(`${child(sessionId)}-resume-%`)).toHaveLength(1);
      expect((await drill.stateStore.getSubSessionRefs(sessionId)).map((ref) => [ref.name, ref.status, ref.completionDelivered])).toEqual([['k', 'completed', true]]);
      expect((await drill.stateStore.listRuns(sessionId)).runs.map((run) => run.status)).toEqual(['suspended_awaiting_children', 'completed']);
      expect(await drill.stateStore.getMessages(sessionId).then(({ messages }) => messages.filter((message) => message.id?.startsWith('companion:')))).toEqual([]);
      const pending = await drill.pool.query<{ workflow_uuid: string }>("SELECT workflow_uuid FROM dbos.workflow_status WHERE workflow_uuid LIKE $1 AND status IN ('PENDING', 'ENQUEUED')", [`%${sessionId}%`]);
      expect(pending.rows).toEqual([]);
    }

    it('killed while parked, then in the resumed companion turn after the submission: the parent gets the result once in the same turn', async () => {
      const sessionId = 'cc-4';
      await parkAndKill(sessionId, 'cc-exec-5');
      const submission = { toolCallId: `confirm-${child(sessionId)}`, result: { yes: 1 } };
      const doomed = workers.spawn('doomed submitting worker', 'cc-exec-6', config({ mode: 'submit', sessionId, messages: [], hitlWarmWindowMs: 200, persistentWarmWindowMs: 200, autoResumeOnSubmit: true, submit: submission, hangOnHumanAnswer: true }), SCRIPT);
      const resumed = await doomed.waitForEvent('started', 30_000);
      await waitForSignal(doomed, "the resumed companion turn's model call", async () => (await count("SELECT count(*) FROM companion_llm_calls WHERE agent_type = 'clerk' AND last_role = 'tool'", [])) === 1);
      await doomed.kill();

      const recoverer = workers.spawn('recover submission worker', 'cc-exec-6', config({ mode: 'recover', sessionId, messages: [], runIds: [resumed.runId], hitlWarmWindowMs: 200, persistentWarmWindowMs: 200, waitParked: [child(sessionId)] }), SCRIPT);
      expect((await recoverer.waitForEvent('result', 45_000)).result).toMatchObject({ status: 'completed', output: 'parent done' });
      expect(await recoverer.waitForExit(30_000)).toBe(0);
      await expectDeliveredOnce(sessionId);
      // The parent's model saw the companion's result in the turn it was parked in: two parent calls in all.
      expect(await count("SELECT count(*) FROM companion_llm_calls WHERE session_id = $1 AND agent_type = 'boss'", [sessionId])).toBe(2);
    }, 150_000);

    it("killed between the resume's marker CAS and its workflow start: recovery starts that generation once", async () => {
      const sessionId = 'cc-5';
      await parkAndKill(sessionId, 'cc-exec-7');
      const submission = { toolCallId: `confirm-${child(sessionId)}`, result: { yes: 1 } };
      const doomed = workers.spawn('doomed resuming worker', 'cc-exec-8', config({ mode: 'submit', sessionId, messages: [], hitlWarmWindowMs: 200, persistentWarmWindowMs: 200, autoResumeOnSubmit: true, submit: submission, hangAfterMarkerCas: '-resume-' }), SCRIPT);
      const resumed = await doomed.waitForEvent('started', 30_000);
      await waitForSignal(doomed, 'the resume CAS', async () => readPersistentMarker((await drill.stateStore.loadState(child(sessionId)))?.metadata)?.workflowId.includes('-resume-') === true);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await workflows(`${child(sessionId)}-resume-%`)).toEqual([]);
      await doomed.kill();

      const recoverer = workers.spawn('recover resuming worker', 'cc-exec-8', config({ mode: 'recover', sessionId, messages: [], runIds: [resumed.runId], hitlWarmWindowMs: 200, persistentWarmWindowMs: 200, waitParked: [child(sessionId)] }), SCRIPT);
      expect((await recoverer.waitForEvent('result', 45_000)).result).toMatchObject({ status: 'completed', output: 'parent done' });
      expect(await recoverer.waitForExit(30_000)).toBe(0);
      await expectDeliveredOnce(sessionId);
    }, 150_000);
  });
});

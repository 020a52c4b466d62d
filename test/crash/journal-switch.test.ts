/**
 * SIGKILL drills across the two step journals: a run recorded by one journal (two committed tool steps, the third
 * step's model call hanging) is killed and recovered by a process on the OTHER journal. The recovered run re-issues
 * only the hung call: no completed model call or tool runs again, no message or chunk is duplicated, the session
 * ends exactly as an uncrashed run's, and DBOS lists the same steps before and after the crash (the recovered
 * steps appended under the next function ids).
 */
import { describe, expect, it } from 'vitest';
import { useDrill } from './support/drill.js';
import { DRILL_SCENARIOS } from './support/drill-scenarios.js';
import { killAndRecover, startDoomedRun, waitForSignal } from './support/drill-flow.js';
import { chunkRowCount, stepRecordsOf, toolRunCounts } from './support/durable-probes.js';
import { describeConversation, snapshotSession, storedMessages } from './support/session-snapshot.js';

const BASELINE = 'switch-baseline';
const FUSED_FIRST = 'switch-fused-first';
const PUBLIC_FIRST = 'switch-public-first';

const env = useDrill('crash_journal', {
  sessions: [
    [FUSED_FIRST, DRILL_SCENARIOS.twoStepsThenHang, { crash: true }],
    [PUBLIC_FIRST, DRILL_SCENARIOS.twoStepsThenHang, { crash: true }],
  ],
  baselines: { executorId: 'crash-journal-baseline', sessions: [[BASELINE, DRILL_SCENARIOS.twoStepsThenHang]] },
});

const RECORDED_BEFORE_KILL = ['BeginRunStep', 'CallLLMStep', 'ExecuteToolStep:lookup', 'CallLLMStep', 'ExecuteToolStep:lookup'];

describe.each([
  ['fused', 'public', FUSED_FIRST],
  ['public', 'fused', PUBLIC_FIRST],
] as const)('crash drill: recorded on the %s journal, recovered on the %s journal', (first, second, sessionId) => {
  it('re-runs nothing that completed and lists the same steps before and after the crash', async () => {
    const doomed = await startDoomedRun(env, `switch-${first}`, sessionId, [], { journal: first });
    await waitForSignal(doomed.worker, "step 3's model call (hanging)", async () => env.llm.countOf(sessionId, 3) === 1);
    const before = await stepRecordsOf(env.pool, doomed.workflowId);
    expect(before.map((step) => step.name)).toEqual(RECORDED_BEFORE_KILL);
    expect(before.map((step) => step.functionId)).toEqual([0, 1, 2, 3, 4]);

    const { result } = await killAndRecover(env, doomed, { journal: second });

    expect(result).toMatchObject({ status: 'completed', output: 'Two facts.', stepCount: 3 });
    // Only the hung call was issued again; both tools ran once.
    expect(env.llm.countsByStep(sessionId)).toEqual([1, 1, 2]);
    expect(await toolRunCounts(env.pool, sessionId)).toEqual({ call_1_lookup_a: 1, call_2_lookup_b: 1 });
    // DBOS's step list: the rows from before the crash, unchanged, then the recovered steps under the next ids.
    const after = await stepRecordsOf(env.pool, doomed.workflowId);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.map((step) => step.name)).toEqual([...RECORDED_BEFORE_KILL, 'CallLLMStep', 'FinishRunStep']);
    expect(after.map((step) => step.functionId)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // No duplicated message or chunk; the session as an uncrashed run leaves it.
    const messages = await storedMessages(env, sessionId);
    expect(describeConversation(messages)).toEqual(['user', 'assistant[call_1_lookup_a]', 'tool(call_1_lookup_a)', 'assistant[call_2_lookup_b]', 'tool(call_2_lookup_b)', 'assistant']);
    expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);
    for (const step of [1, 2]) {
      expect(await chunkRowCount(env.pool, sessionId, 'tool_start', step)).toBe(1);
      expect(await chunkRowCount(env.pool, sessionId, 'tool_end', step)).toBe(1);
    }
    expect(await snapshotSession(env, sessionId, result)).toEqual(await snapshotSession(env, BASELINE, env.baseline(BASELINE)));
  }, 120_000);
});

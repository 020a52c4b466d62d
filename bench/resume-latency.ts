import type { DBOSAgentExecutor } from '../src/index.js';
import { ASK_TOOL_CALL_ID, type createAnswerAgent, type createHitlAgent } from './hitl-agents.js';
import { summarizeLatencies, type LatencySummary } from './latency-summary.js';
import { runConcurrently } from './run-concurrently.js';
import { waitUntilEnded } from './workflow-progress.js';

/**
 * Latencies of continuing a parked session, next to a fresh one-step run.
 *
 * @example
 * const { resumeToCompleted, freshToCompleted } = await measureResumeLatencies(parkingExecutor, agents, 100);
 */
export interface ResumeLatencies {
  /** `resume()` called on a parked session (its result already submitted) → the new run completed, ms. */
  resumeToCompleted: LatencySummary;
  /** `execute()` of a new session whose single step answers → completed, ms. */
  freshToCompleted: LatencySummary;
}

const WARM_UP_SAMPLES = 5;
const PARKING_CONCURRENCY = 10;

/**
 * Park `samples` HITL sessions (the executor's warm window must be short), submit their results, then
 * time each `resume()` to completion, interleaved with fresh one-step runs of the answer agent.
 *
 * @example
 * const latencies = await measureResumeLatencies(parkingExecutor, { hitl: createHitlAgent(), answer: createAnswerAgent() }, 100);
 */
export async function measureResumeLatencies(
  executor: DBOSAgentExecutor,
  agents: { hitl: ReturnType<typeof createHitlAgent>; answer: ReturnType<typeof createAnswerAgent> },
  samples: number,
): Promise<ResumeLatencies> {
  const total = WARM_UP_SAMPLES + samples;
  const parkedRuns: string[] = [];
  await runConcurrently(total, PARKING_CONCURRENCY, async (index) => {
    const sessionId = `bench-parked-${index}`;
    const handle = await executor.execute(agents.hitl, 'Go.', { sessionId });
    await waitUntilEnded(handle.workflowId);
    const run = await handle.result();
    if (run.status !== 'suspended_client_tool') throw new Error(`The run of ${sessionId} ended ${run.status} instead of parking.`);
    parkedRuns[index] = handle.runId;
    const { status } = await executor.submitToolResult({ kind: 'client-tool-result', sessionId, toolCallId: ASK_TOOL_CALL_ID, result: { answer: 'yes' } });
    if (status !== 'accepted') throw new Error(`The submission to the parked ${sessionId} was ${status}.`);
  });

  const resumeToCompleted: number[] = [];
  const freshToCompleted: number[] = [];
  for (let index = 0; index < total; index += 1) {
    const sessionId = `bench-parked-${index}`;
    const resumedAt = performance.now();
    const resumed = await (await executor.resume(agents.hitl, sessionId)).result();
    const resumeMs = performance.now() - resumedAt;
    if (resumed.status !== 'completed' || resumed.runId === parkedRuns[index]) throw new Error(`The resumed run of ${sessionId} ended ${resumed.status}.`);

    const startedAt = performance.now();
    const fresh = await (await executor.execute(agents.answer, 'Go.', { sessionId: `bench-fresh-${index}` })).result();
    const freshMs = performance.now() - startedAt;
    if (fresh.status !== 'completed') throw new Error(`The fresh run bench-fresh-${index} ended ${fresh.status}.`);
    if (index < WARM_UP_SAMPLES) continue;
    resumeToCompleted.push(resumeMs);
    freshToCompleted.push(freshMs);
  }
  return { resumeToCompleted: summarizeLatencies(resumeToCompleted), freshToCompleted: summarizeLatencies(freshToCompleted) };
}

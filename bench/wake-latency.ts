import { DBOS } from '@dbos-inc/dbos-sdk';
import type { DBOSAgentExecutor } from '../src/index.js';
import { ASK_TOOL_CALL_ID, type createHitlAgent } from './hitl-agents.js';
import { summarizeLatencies, type LatencySummary } from './latency-summary.js';
import { RECV_BASELINE_TOPIC, RecvBaselineWorkflows } from './recv-baseline.workflow.js';
import { recvReturnedAt, waitUntilReceiving } from './workflow-progress.js';

/**
 * Latencies of waking a run that waits warm, next to DBOS's own send→recv.
 *
 * @example
 * const { submitToWake, sendToWake } = await measureWakeLatencies(executor, createHitlAgent(), 100);
 */
export interface WakeLatencies {
  /** `submitToolResult` called → the waiting run's `DBOS.recv` returned (DBOS-recorded), ms. */
  submitToWake: LatencySummary;
  /** `submitToolResult` called → the continued run (same runId) completed, seen by `handle.result()`, ms. */
  submitToCompleted: LatencySummary;
  /** Bare DBOS: `DBOS.send` called → a trivial workflow's `DBOS.recv` returned (DBOS-recorded), ms. */
  sendToWake: LatencySummary;
}

const WARM_UP_SAMPLES = 5;
const RECV_TIMEOUT_SECONDS = 120;

/**
 * Measure `samples` warm wakes of the HITL agent and as many bare send→recv wakes, interleaved; each starts
 * once its workflow is blocked in `DBOS.recv`. Needs an executor whose warm window outlasts a sample.
 *
 * @example
 * const latencies = await measureWakeLatencies(warmExecutor, createHitlAgent(), 100);
 */
export async function measureWakeLatencies(executor: DBOSAgentExecutor, agent: ReturnType<typeof createHitlAgent>, samples: number): Promise<WakeLatencies> {
  const submitToWake: number[] = [];
  const submitToCompleted: number[] = [];
  const sendToWake: number[] = [];
  for (let index = 0; index < WARM_UP_SAMPLES + samples; index += 1) {
    const bare = await timeBareWake(`bench-recv-${index}`);
    const agentWake = await timeAgentWake(executor, agent, `bench-warm-${index}`);
    if (index < WARM_UP_SAMPLES) continue;
    sendToWake.push(bare);
    submitToWake.push(agentWake.wakeMs);
    submitToCompleted.push(agentWake.completedMs);
  }
  return { submitToWake: summarizeLatencies(submitToWake), submitToCompleted: summarizeLatencies(submitToCompleted), sendToWake: summarizeLatencies(sendToWake) };
}

async function timeBareWake(workflowId: string): Promise<number> {
  // DBOS needs the registered (decorated) static method itself, not a wrapper.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const handle = await DBOS.startWorkflow(RecvBaselineWorkflows.run, { workflowID: workflowId })(RECV_TIMEOUT_SECONDS);
  await waitUntilReceiving(workflowId);
  const sentAt = Date.now();
  await DBOS.send(workflowId, 'go', RECV_BASELINE_TOPIC);
  if (!(await handle.getResult())) throw new Error(`The baseline workflow ${workflowId} timed out instead of receiving.`);
  return (await recvReturnedAt(workflowId)) - sentAt;
}

async function timeAgentWake(executor: DBOSAgentExecutor, agent: ReturnType<typeof createHitlAgent>, sessionId: string): Promise<{ wakeMs: number; completedMs: number }> {
  const handle = await executor.execute(agent, 'Go.', { sessionId });
  await waitUntilReceiving(handle.workflowId);
  const submittedAt = Date.now();
  const { status } = await executor.submitToolResult({ kind: 'client-tool-result', sessionId, toolCallId: ASK_TOOL_CALL_ID, result: { answer: 'yes' } });
  if (status !== 'accepted') throw new Error(`The submission to ${sessionId} was ${status}.`);
  const result = await handle.result();
  const completedAt = Date.now();
  if (result.status !== 'completed' || result.runId !== handle.runId) throw new Error(`The warm run of ${sessionId} ended ${result.status} in run ${result.runId}.`);
  return { wakeMs: (await recvReturnedAt(handle.workflowId)) - submittedAt, completedMs: completedAt - submittedAt };
}

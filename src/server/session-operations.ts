import { isParkedRunStatus } from '../index.js';
import type { AgentExecutionHandle } from '../executor/types.js';
import type { SubmitToolResult, SubmitToolResultResponse } from '../executor/submit-tool-result.js';
import type { SessionState } from '../types/session.js';
import { AgentServerHttpError } from './server-errors.js';
import { treeOpenCalls } from './session-status.js';
import type { ServerContext } from './server-context.js';

/** @internal Where a run's chunks are: read `streamId` after `startSequence` to get exactly this run. */
export interface RunDescriptor {
  sessionId: string;
  runId: string;
  streamId: string;
  startSequence: number;
}

/** @internal The stream position of a run the executor just started or returned. */
export async function describeRun(context: ServerContext, handle: AgentExecutionHandle): Promise<RunDescriptor> {
  const { stateStore, streamManager } = context.options;
  const [state, run] = await Promise.all([stateStore.loadState(handle.sessionId), stateStore.getRun(handle.sessionId, handle.runId)]);
  const streamId = state?.streamId ?? handle.sessionId;
  const startSequence = run?.startSequence ?? (await streamManager.getInfo(streamId))?.lastSequence ?? 0;
  return { sessionId: handle.sessionId, runId: handle.runId, streamId, startSequence };
}

/** @internal Durable interrupt through the executor's handle (works from any server instance). */
export async function interruptRun(context: ServerContext, state: SessionState, reason?: string): Promise<void> {
  const run = await context.options.stateStore.getCurrentRun(state.sessionId);
  if (run?.status !== 'running') throw noActiveRun();
  const handle = await context.options.executor.getHandle(context.agentOf(state), state.sessionId);
  if (handle === null) throw noActiveRun();
  await handle.interrupt(reason);
}

/** @internal Abort through the executor's handle (cancels the DBOS workflow; works from any server instance). */
export async function abortRun(context: ServerContext, state: SessionState, reason?: string): Promise<void> {
  const run = await context.options.stateStore.getCurrentRun(state.sessionId);
  if (run?.status !== 'running' && !isParkedRunStatus(run?.status)) throw noActiveRun();
  const handle = await context.options.executor.getHandle(context.agentOf(state), state.sessionId);
  if (handle === null) throw noActiveRun();
  await handle.abort(reason);
}

/**
 * @internal Submit answers exactly once, then continue the run: a warm run wakes in place by itself; a
 * parked run (ended its workflow while waiting) is resumed once nothing is left open in its tree. Returns the handle of
 * the run that continues, or null when calls are still open (or the submissions changed nothing).
 */
export async function submitAndContinue(
  context: ServerContext,
  state: SessionState,
  submissions: readonly SubmitToolResult[],
): Promise<{ responses: SubmitToolResultResponse[]; handle: AgentExecutionHandle | null }> {
  const { executor, stateStore } = context.options;
  const responses: SubmitToolResultResponse[] = [];
  for (const submission of submissions) responses.push(await executor.submitToolResult(submission));
  const agent = context.agentOf(state);
  const [after, run] = await Promise.all([stateStore.loadState(state.sessionId), stateStore.getCurrentRun(state.sessionId)]);
  // A parked root resumes once its whole tree waits for nothing (a sub-agent may still wait for another answer).
  if (after === null || run === null || (await treeOpenCalls(stateStore, after)).calls.length > 0) return { responses, handle: null };
  if (isParkedRunStatus(run.status)) return { responses, handle: await executor.resume(agent, state.sessionId) };
  return { responses, handle: run.status === 'running' ? await executor.getHandle(agent, state.sessionId) : null };
}

function noActiveRun(): AgentServerHttpError {
  return new AgentServerHttpError(409, 'NO_ACTIVE_RUN', 'The session has no running run.');
}

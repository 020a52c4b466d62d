import { isParkedRunStatus } from '../index.js';
import type { AgentExecutionHandle } from '../executor/types.js';
import type { SubmitToolResult, SubmitToolResultResponse } from '../executor/submit-tool-result.js';
import type { SessionState } from '../types/session.js';
import { AgentServerHttpError } from './server-errors.js';
import { openCallsOf } from '../store/open-calls.js';
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

/** @internal What GET /status answers. */
export async function sessionStatus(context: ServerContext, state: SessionState): Promise<Record<string, unknown>> {
  const { stateStore, streamManager } = context.options;
  const streamId = state.streamId ?? state.sessionId;
  const [run, stream] = await Promise.all([stateStore.getCurrentRun(state.sessionId), streamManager.getInfo(streamId)]);
  const open = openCallsOf(state);
  const ended = state.failureReason === 'aborted' || state.status === 'failed' || state.status === 'completed';
  return {
    sessionId: state.sessionId,
    agentType: state.agentType,
    status: state.status,
    stepCount: state.stepCount,
    run:
      run === null
        ? null
        : {
            runId: run.runId,
            status: run.status,
            turn: run.turn,
            stepCount: run.stepCount,
            startSequence: run.startSequence,
            ...(run.completionReason === undefined ? {} : { completionReason: run.completionReason }),
          },
    ...(state.output === undefined || state.output === null ? {} : { output: state.output }),
    ...(state.error === undefined ? {} : { error: state.error }),
    ...(state.failureReason === undefined ? {} : { failureReason: state.failureReason }),
    awaitingClientTool: open.some((entry) => entry.kind === 'client'),
    awaitingApproval: open.some((entry) => entry.kind === 'approval'),
    pendingToolCalls: open.map((entry) => ({
      toolCallId: entry.toolCallId,
      toolName: entry.toolName,
      kind: entry.kind,
      input: entry.input,
      ...(entry.approvalId === undefined ? {} : { approvalId: entry.approvalId }),
    })),
    canResume: !ended && (state.status === 'interrupted' || state.status === 'paused' || open.length > 0),
    stream: { streamId, status: stream?.status ?? 'active', lastSequence: stream?.lastSequence ?? 0 },
  };
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
 * parked run (ended its workflow while waiting) is resumed once nothing is left open. Returns the handle of
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
  if (after === null || run === null || openCallsOf(after).length > 0) return { responses, handle: null };
  if (isParkedRunStatus(run.status)) return { responses, handle: await executor.resume(agent, state.sessionId) };
  return { responses, handle: run.status === 'running' ? await executor.getHandle(agent, state.sessionId) : null };
}

function noActiveRun(): AgentServerHttpError {
  return new AgentServerHttpError(409, 'NO_ACTIVE_RUN', 'The session has no running run.');
}

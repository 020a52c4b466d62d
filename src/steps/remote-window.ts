import type { RemoteSubAgentTool } from '../agent/index.js';
import {
  decideRemoteStatus,
  decideRemoteWait,
  REMOTE_INTERRUPTED_MESSAGE,
  REMOTE_TERMINATED_MESSAGE,
  REMOTE_TIMEOUT_MESSAGE,
  REMOTE_UNREACHABLE_MESSAGE,
  remoteStreamDrained,
  type RemoteDecision,
  type RemoteOutcome,
} from '../orchestration/remote-sub-agents.js';
import { formatSchemaIssues } from '../orchestration/schema-issues.js';
import type { PlannedRemoteCall } from '../orchestration/step-plan-types.js';
import type { RunScope } from '../orchestration/workflow-input.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { RemoteAgentStatus } from '../types/remote.js';
import type { SubSessionRef } from '../types/session.js';
import { proxyStreamWindow } from './remote-stream-window.js';
import type { StepEnvironment } from './step-scope.js';
import { chunkKey } from './stream-writers.js';

/** Pause before the next window when the server is unreachable or a window ended at once without progress. */
const RETRY_PAUSE_MS = 500;

type Done = Extract<RemoteDecision, { kind: 'done' }> & { lastSequence: number };
type Continue = { kind: 'continue'; fromSequence: number; startedAt: number; unreachableSince?: number; draining?: boolean };

/** What a window step is called with. */
interface WindowScope extends RunScope {
  step: number;
  call: PlannedRemoteCall;
}

/** @internal The parent's ref of a remote session, if recorded. */
export async function remoteRefOf(stateStore: SessionStateStore, parentSessionId: string, remoteSessionId: string): Promise<SubSessionRef | undefined> {
  return (await stateStore.getSubSessionRefs(parentSessionId)).find((ref) => ref.subSessionId === remoteSessionId);
}

/**
 * @internal One bounded window of a remote call: proxy the stream from the recorded sequence, then decide from
 * `getStatus()` (done, or continue), bounding the wait by the tool's `timeoutMs` and `unreachableTimeoutMs`.
 */
export async function windowOnce(environment: StepEnvironment, input: WindowScope, tool: RemoteSubAgentTool, progress: Continue): Promise<Done | Continue> {
  const { stateStore, streamManager } = environment.dependencies;
  const { call } = input;
  const remote = call.remoteSessionId;
  const ref = await remoteRefOf(stateStore, input.sessionId, remote);
  const streamId = ref?.remote?.streamId ?? remote;
  const from = Math.max(progress.fromSequence, ref?.remote?.lastSequence ?? 0);
  if (ref?.status === 'terminated') {
    await tool.transport.abort(remote, 'The parent run was aborted.').catch(() => undefined);
    return terminated(from);
  }
  const began = Date.now();
  const window = await proxyStreamWindow({
    transport: tool.transport,
    remoteSessionId: remote,
    fromSequence: from,
    windowMs: tool.streamWindowMs,
    streamManager,
    stateStore,
    streamId: input.streamId,
    parentSessionId: input.sessionId,
    parentStep: input.step,
    refTerminated: async () => (await remoteRefOf(stateStore, input.sessionId, remote))?.status === 'terminated',
    record: (lastSequence) => stateStore.updateSubSessionRef(input.sessionId, remote, { remote: { streamId, lastSequence } }),
  });
  if (window.abortSent) return terminated(window.lastSequence);
  const status = await tool.transport.getStatus(remote).catch((error: unknown) => {
    if ((error as { code?: unknown }).code === 'REMOTE_TRANSPORT_ERROR') return null;
    throw error;
  });
  const now = Date.now();
  const bounds = { now, startedAt: progress.startedAt, timeoutMs: tool.timeoutMs, unreachableTimeoutMs: tool.unreachableTimeoutMs };
  if (status === null) {
    const unreachableSince = progress.unreachableSince ?? now;
    if (window.interruptSent || (await stateStore.isInterruptRequested(input.sessionId))) return failed(REMOTE_INTERRUPTED_MESSAGE, 'interrupted', window.lastSequence);
    if (decideRemoteWait({ ...bounds, unreachableSince }) !== 'continue') return failed(REMOTE_UNREACHABLE_MESSAGE, 'failed', window.lastSequence);
    await pause(RETRY_PAUSE_MS);
    return { kind: 'continue', fromSequence: window.lastSequence, startedAt: progress.startedAt, unreachableSince };
  }
  const decision = decideRemoteStatus(status);
  const drained = remoteStreamDrained({
    streamEnded: window.streamEnded,
    proxiedSequence: window.lastSequence,
    remoteLastSequence: status.stream.lastSequence,
    draining: progress.draining === true,
  });
  // The window may have been cut by its time limit just before the run's last chunks: read them first.
  if (decision.kind === 'done' && !drained) return { kind: 'continue', fromSequence: window.lastSequence, startedAt: progress.startedAt, draining: true };
  if (decision.kind === 'done') {
    if (decision.abortRemote) await tool.transport.abort(remote, 'Client tools are not supported in remote sub-agents.').catch(() => undefined);
    return { ...validated(decision, tool, status), lastSequence: window.lastSequence };
  }
  if (decideRemoteWait(bounds) === 'timeout') {
    await tool.transport.interrupt(remote, 'The parent stopped waiting.').catch(() => undefined);
    return failed(REMOTE_TIMEOUT_MESSAGE, 'failed', window.lastSequence);
  }
  if (window.lastSequence === from && Date.now() - began < RETRY_PAUSE_MS) await pause(RETRY_PAUSE_MS);
  return { kind: 'continue', fromSequence: window.lastSequence, startedAt: progress.startedAt };
}

/** @internal Record a finished remote call: the parent's ref (status, output or error, progress) and `subagent_end`. */
export async function finishRemoteCall(environment: StepEnvironment, input: WindowScope, done: Done): Promise<void> {
  const { stateStore } = environment.dependencies;
  const { call } = input;
  const ref = await remoteRefOf(stateStore, input.sessionId, call.remoteSessionId);
  const outcome = done.outcome;
  if (ref !== undefined) {
    await stateStore.updateSubSessionRef(input.sessionId, call.remoteSessionId, {
      status: done.refStatus,
      ...(outcome.kind === 'result' ? { output: outcome.output } : { error: outcome.error }),
      remote: { streamId: ref.remote?.streamId ?? call.remoteSessionId, lastSequence: Math.max(done.lastSequence, ref.remote?.lastSequence ?? 0) },
    });
  }
  await environment.emitter.emit(
    {
      type: 'subagent_end',
      subAgentType: call.agentType,
      subSessionId: call.remoteSessionId,
      callId: call.toolCallId,
      result: outcome.kind === 'result' ? outcome.output : { error: outcome.error },
    },
    { key: chunkKey(input, 'subagent_end', call.toolCallId) },
  );
  await environment.emitter.flush();
}

function validated(decision: Extract<RemoteDecision, { kind: 'done' }>, tool: RemoteSubAgentTool, status: RemoteAgentStatus): Extract<RemoteDecision, { kind: 'done' }> {
  if (decision.outcome.kind !== 'result' || tool.outputSchema === undefined) return decision;
  const parsed = tool.outputSchema.safeParse(status.output);
  if (parsed.success) return { ...decision, outcome: { kind: 'result', output: parsed.data } };
  const error = `The remote sub-agent's output does not match the tool's outputSchema: ${formatSchemaIssues(parsed.error.issues)}.`;
  return { ...decision, refStatus: 'failed', outcome: { kind: 'error', error } };
}

function failed(error: string, refStatus: Done['refStatus'], lastSequence: number): Done {
  const outcome: RemoteOutcome = { kind: 'error', error };
  return { kind: 'done', outcome, refStatus, abortRemote: false, lastSequence };
}

function terminated(lastSequence: number): Done {
  return { kind: 'done', outcome: { kind: 'error', error: REMOTE_TERMINATED_MESSAGE, failureReason: 'aborted' }, refStatus: 'terminated', abortRemote: false, lastSequence };
}

async function pause(ms: number): Promise<void> {
  await new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
}

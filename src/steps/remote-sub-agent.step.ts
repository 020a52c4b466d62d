import { DBOS } from '@dbos-inc/dbos-sdk';
import type { RemoteSubAgentTool } from '../agent/index.js';
import { findEffectiveTool, type PlannedRemoteCall } from '../orchestration/index.js';
import type { RunScope } from '../orchestration/workflow-input.js';
import type { RemoteOutcome } from '../orchestration/remote-sub-agents.js';
import { SessionNotFoundError } from '../errors/index.js';
import { plannedToolMissing } from './planned-tool-missing.js';
import { describeError, stepEnvironment, type StepEnvironment } from './step-scope.js';
import { chunkKey } from './stream-writers.js';
import { finishRemoteCall, remoteRefOf, windowOnce } from './remote-window.js';
import { toolSpan } from '../telemetry/agent-spans.js';
import { formatTraceparent } from '../telemetry/ids.js';
import { toolCallTrace } from '../telemetry/span-emission.js';

/**
 * Input of the remote sub-agent steps: the parent's scope, its step and the call.
 *
 * @example
 * const input: RemoteCallStepInput = { ...scope, step: 1, call };
 */
export interface RemoteCallStepInput extends RunScope {
  step: number;
  call: PlannedRemoteCall;
}

/**
 * Where a remote call stands between durable steps: `continue` (read on from `fromSequence`; `startedAt` and
 * `unreachableSince` bound the wait; `draining`: the remote run has finished, this window reads its last chunks)
 * or `done` with the outcome for the model.
 *
 * @example
 * if (progress.kind === 'continue') progress = await RemoteSubAgentStep.window({ ...input, ...progress });
 */
export type RemoteCallProgress =
  | { kind: 'continue'; fromSequence: number; startedAt: number; unreachableSince?: number; draining?: boolean }
  | { kind: 'done'; outcome: RemoteOutcome };

/**
 * Durable steps of a remote sub-agent call (`runExecuteRemoteSubAgent`): `start` asks the remote server to start
 * the deterministic session `${parentSessionId}-remote-${toolCallId}` (idempotent there), records the parent's
 * `SubSessionRef` with `remote: { streamId, lastSequence }` and writes `subagent_start`; each `window` proxies
 * the remote stream for a bounded time from the recorded sequence, records progress, then asks `getStatus()` and
 * decides (done or go on). A crash repeats at most one window, and its chunks are stored once.
 *
 * @example
 * let progress = await RemoteSubAgentStep.start({ ...scope, step, call });
 * while (progress.kind === 'continue') progress = await RemoteSubAgentStep.window({ ...scope, step, call, progress });
 */
export class RemoteSubAgentStep {
  @DBOS.step({ name: 'RemoteSubAgentStep.start' })
  static async start(input: RemoteCallStepInput): Promise<RemoteCallProgress> {
    const began = Date.now();
    const environment = await stepEnvironment(input, input.step);
    const { stateStore } = environment.dependencies;
    const { call } = input;
    const existing = await remoteRefOf(stateStore, input.sessionId, call.remoteSessionId);
    try {
      const tool = remoteToolOf(environment, call);
      const request = { agentType: call.agentType, sessionId: call.remoteSessionId, input: { message: call.childMessage } };
      const started = await tool.transport.start(request, { traceparent: callTraceparent(input) });
      if (existing === undefined) {
        await stateStore.addSubSessionRefs(input.sessionId, [
          {
            subSessionId: call.remoteSessionId,
            agentType: call.agentType,
            parentToolCallId: call.toolCallId,
            mode: 'ephemeral',
            status: 'running',
            startedAt: Date.now(),
            remote: { streamId: started.streamId, lastSequence: started.startSequence },
          },
        ]);
      }
      await environment.emitter.emit(
        { type: 'subagent_start', subAgentType: call.agentType, subSessionId: call.remoteSessionId, callId: call.toolCallId },
        { key: chunkKey(input, 'subagent_start', call.toolCallId) },
      );
      await environment.emitter.flush();
      const ref = await remoteRefOf(stateStore, input.sessionId, call.remoteSessionId);
      return { kind: 'continue', fromSequence: ref?.remote?.lastSequence ?? started.startSequence, startedAt: ref?.startedAt ?? Date.now() };
    } catch (error) {
      if (SessionNotFoundError.isInstance(error)) throw error;
      // A re-run of a start that had succeeded: the windows find out what the remote server does now.
      if (existing?.remote !== undefined) return { kind: 'continue', fromSequence: existing.remote.lastSequence, startedAt: existing.startedAt };
      const reason = describeError(error);
      environment.dependencies.logger.error('remote_subagent.start_failed', { sessionId: input.sessionId, runId: input.runId, agentType: call.agentType });
      const text = `The remote sub-agent could not be started: ${reason}`;
      await environment.emitter.emit({ type: 'tool_end', toolCallId: call.toolCallId, toolName: call.toolName, error: text }, { key: chunkKey(input, 'remote_start_failed', call.toolCallId) });
      await environment.emitter.flush();
      const outcome: RemoteOutcome = { kind: 'error', error: text };
      remoteToolSpan(input, outcome, began);
      return { kind: 'done', outcome };
    }
  }

  @DBOS.step({ name: 'RemoteSubAgentStep.window' })
  static async window(input: RemoteCallStepInput & { progress: Extract<RemoteCallProgress, { kind: 'continue' }> }): Promise<RemoteCallProgress> {
    const environment = await stepEnvironment(input, input.step);
    const tool = remoteToolOf(environment, input.call);
    const decided = await windowOnce(environment, input, tool, input.progress);
    if (decided.kind === 'done') await finishRemoteCall(environment, input, decided);
    if (decided.kind === 'done') remoteToolSpan(input, decided.outcome, input.progress.startedAt);
    return decided.kind === 'done' ? { kind: 'done', outcome: decided.outcome } : decided;
  }
}

/** The remote sub-agent tool a call names (its transport and limits come from the definition, never the store). */
function remoteToolOf(environment: StepEnvironment, call: PlannedRemoteCall): RemoteSubAgentTool {
  const tool = findEffectiveTool(environment.agent, call.toolName);
  if (tool?.kind !== 'remote') throw plannedToolMissing('remote sub-agent', call.toolName, environment.agent.name);
  return tool;
}

/**
 * The W3C `traceparent` a remote start carries: the caller's trace (the one its own remote caller passed, else its
 * session tree's) and the call's `execute_tool` span, the remote run's parent.
 */
function callTraceparent(input: RemoteCallStepInput): string {
  const { traceId, parentSpanId } = toolCallTrace(input, input.call.toolCallId);
  return formatTraceparent(traceId, parentSpanId);
}

/** The caller's `execute_tool <remote tool>` span, from the call's start to its outcome (emitted by the step that decided it). */
function remoteToolSpan(input: RemoteCallStepInput, outcome: RemoteOutcome, startedAt: number): void {
  const failure = outcome.kind === 'error' ? outcome.failureReason : undefined;
  toolSpan(input, {
    step: input.step,
    toolCallId: input.call.toolCallId,
    toolName: input.call.toolName,
    startedAt,
    endedAt: Date.now(),
    outcome: outcome.kind === 'result' ? 'success' : failure === 'aborted' ? 'aborted' : 'error',
    executor: 'remote_agent',
    attempt: 1,
    arguments: input.call.input,
    ...(outcome.kind === 'result' ? { result: outcome.output } : { error: { type: failure === 'aborted' || failure === 'interrupted' ? failure : 'remote_agent_failed' } }),
  });
}

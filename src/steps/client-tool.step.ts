import { isParkedRunStatus } from '../orchestration/session-transitions.js';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { StaleStateError } from '../errors/index.js';
import type { Message } from '../types/message.js';
import type { RunStatus, SuspendedChildWait } from '../types/session.js';
import type { ParentLink } from '../orchestration/workflow-input.js';
import { checkpointIdFor, suspendedCheckpointId } from '../orchestration/ids.js';
import type { ToolOutcome } from './execute-tool.step.js';
import {
  collectAnswers,
  firesAfterToolOnResolve,
  isCallAnswered,
  planHitlAnnouncement,
  resolveSubmission,
  suspendedCallsOf,
} from '../orchestration/hitl-decisions.js';
import type { HitlCall, HitlResolution, Submission, SuspensionRecord } from '../orchestration/hitl-types.js';
import { forgetHistory } from './history-cache.js';
import { fireMessageHooks } from './message-hooks.js';
import { updateSessionWithRetry } from '../store/update-session-with-retry.js';
import { hookIdentity, stepEnvironment, turnKeyOf, type RunScope } from './step-scope.js';
import { workflowHookManagers, workflowUsageStores } from './runtime-registry.js';
import { sessionSignal, signalRunChanged } from './run-signals.js';
import { forgetWorkflow } from './stream-reset-tracker.js';
import { chunkKey, releaseStreamWriter } from './stream-writers.js';
import { sessionDeletedError } from '../store/update-session-with-retry.js';
import { emitHumanWaits, emitRunEnded } from './run-telemetry.js';

/** Input of `ClientToolStep.suspend`. */
export interface SuspendInput extends RunScope {
  step: number;
  calls: HitlCall[];
  /** Root of the session tree: ownership of each call is recorded there for submit routing. */
  rootSessionId: string;
}

/** What `ClientToolStep.poll` found. */
export interface PollOutput {
  submissions: Record<string, Submission>;
  /** Calls whose client deadline passed without a submission. */
  expired: string[];
  interrupted: boolean;
  interruptReason?: string;
}

/** Input of `ClientToolStep.park`. */
export interface ParkInput extends RunScope {
  step: number;
  /** What the step produced so far (assistant message, phase-1 results), committed with the suspension. */
  messages: Message[];
  toolOutcomes: ToolOutcome[];
  suspension: SuspensionRecord;
  /** Park even if answers arrived (an interrupt during the wait); leaves the run status and stream to the finish step. */
  force: boolean;
  /** Set for a sub-agent run: the shared stream stays open and the parent's ref reads `paused_awaiting_client`. */
  parent?: ParentLink;
  /** Children the step waits for (a parent parks because a child parked): recorded on the session for resume(). */
  awaitingChildren?: Record<string, SuspendedChildWait>;
  /**
   * Set when only children wait (no call of this step): the run is recorded `suspended_awaiting_children` and
   * onAgentSuspended fires with reason `awaiting_children` and these (descendants') call ids.
   */
  awaitingOnlyChildren?: { toolCallIds: string[] };
}

/**
 * Durable steps of a human-in-the-loop wait: write the pending entries (and root ownership) and announce
 * them; poll durable submissions; park the run (commit the suspension atomically and end the workflow);
 * resolve answered calls into results with their chunks, usage and hooks. Used by the agent workflow;
 * exported for custom executors and tests.
 *
 * @example
 * const { createdAt } = await ClientToolStep.suspend({ ...scope, step: 1, calls, rootSessionId: scope.sessionId });
 */
export class ClientToolStep {
  @DBOS.step({ name: 'ClientToolStep.suspend' })
  static async suspend(input: SuspendInput): Promise<{ createdAt: number }> {
    const { dependencies, hooks, emitter } = await stepEnvironment(input, input.step);
    const { stateStore } = dependencies;
    const createdAt = Date.now();
    const { value: open } = await updateSessionWithRetry(stateStore, input.sessionId, (state) => {
      const planned = planHitlAnnouncement(input.calls, state, { ownerSessionId: input.sessionId, agentType: input.agentType, runId: input.runId, createdAt });
      return { write: planned.pending === null ? null : { pendingClientToolCalls: planned.pending }, value: planned.announce };
    });
    if (input.rootSessionId !== input.sessionId) {
      await updateSessionWithRetry(stateStore, input.rootSessionId, (root) => {
        const ownership = { ...(root.clientToolCallOwnership ?? {}) };
        for (const { call } of input.calls) ownership[call.toolCallId] = input.sessionId;
        return { write: { clientToolCallOwnership: ownership }, value: undefined };
      });
    }
    for (const { call, kind, approvalId } of open) {
      if (kind === 'client') {
        await emitter.emit(
          { type: 'tool_start', toolCallId: call.toolCallId, toolName: call.toolName, arguments: call.input, clientExecuted: true },
          { key: chunkKey(input, 'tool_start', call.toolCallId) },
        );
      } else {
        await emitter.emit(
          { type: 'tool_approval_request', toolCallId: call.toolCallId, toolName: call.toolName, arguments: call.input, approvalId },
          { key: chunkKey(input, 'tool_approval_request', call.toolCallId) },
        );
      }
    }
    if (open.length > 0) {
      await emitter.emit({ type: 'run_suspended', runId: input.runId, reason: 'client_tool', calls: suspendedCallsOf(open) });
    }
    await emitter.flush();
    if (open.length === 0) return { createdAt };
    signalRunChanged(input.runId);
    signalRunChanged(sessionSignal(input.rootSessionId ?? input.sessionId));
    dependencies.logger.info('client_tool.suspended', { sessionId: input.sessionId, runId: input.runId, count: open.length });
    await hooks.fire('onAgentSuspended', { ...hookIdentity(input), reason: 'client_tool', toolCallIds: open.map(({ call }) => call.toolCallId) });
    return { createdAt };
  }

  @DBOS.step({ name: 'ClientToolStep.poll' })
  static async poll(input: RunScope & { toolCallIds: string[] }): Promise<PollOutput> {
    const { stateStore } = (await stepEnvironment(input, 0)).dependencies;
    const flag = await stateStore.readInterruptFlag(input.sessionId);
    const state = await stateStore.loadState(input.sessionId);
    const { submissions, expired } = collectAnswers(input.toolCallIds, state?.pendingClientToolCalls, Date.now());
    return { submissions, expired, interrupted: flag.interrupted, ...(flag.reason === undefined ? {} : { interruptReason: flag.reason }) };
  }

  /**
   * Commit the suspension and end the run, unless a submission or deadline arrived meanwhile (then
   * `parked: false` and the workflow keeps going). The version check makes park and submit mutually exclusive.
   */
  @DBOS.step({ name: 'ClientToolStep.park' })
  static async park(input: ParkInput): Promise<{ parked: boolean }> {
    const { dependencies, hooks, emitter } = await stepEnvironment(input, input.step);
    const { stateStore, streamManager } = dependencies;
    // A replay of a park that already published its status (crash before DBOS recorded the step) is done:
    // resume() may own the session by now, so touch nothing.
    const recorded = await stateStore.getRun(input.sessionId, input.runId);
    if (isParkedRunStatus(recorded?.status) && !input.force) return { parked: true };
    const state = await stateStore.loadState(input.sessionId);
    if (state === null) throw sessionDeletedError(input.sessionId);
    const now = Date.now();
    const answered = input.suspension.hitlCalls.some(({ call }) => isCallAnswered(state.pendingClientToolCalls?.[call.toolCallId], now));
    if (answered && !input.force && input.awaitingChildren === undefined) return { parked: false };
    const stepId = checkpointIdFor(input.runId, input.step);
    try {
      await stateStore.saveStateAndPromoteStaging(
        input.sessionId,
        {
          suspendedStepId: stepId,
          stepCount: input.step,
          ...(input.awaitingChildren === undefined ? {} : { suspendedAwaitingChildren: input.awaitingChildren }),
        },
        input.messages,
        { checkpointId: suspendedCheckpointId(stepId), runId: input.runId, stepCount: input.step },
        { expectedVersion: state.version, stepId },
      );
    } catch (error) {
      if (StaleStateError.isInstance(error)) return { parked: false };
      throw error;
    }
    const run = await stateStore.getRun(input.sessionId, input.runId);
    const recordSuspension = (status: RunStatus): Promise<void> =>
      stateStore.updateRunStatus(input.sessionId, input.runId, status, {
        stepCount: input.step,
        metadata: { ...(run?.metadata ?? {}), suspension: input.suspension },
      });
    if (input.force) await recordSuspension(run?.status ?? 'running');
    await fireMessageHooks(hooks, input, input.messages, input.toolOutcomes);
    await emitter.flush();
    if (input.force) return { parked: true };
    if (input.awaitingOnlyChildren !== undefined) {
      await hooks.fire('onAgentSuspended', { ...hookIdentity(input), reason: 'awaiting_children', toolCallIds: input.awaitingOnlyChildren.toolCallIds });
    }
    forgetWorkflow(turnKeyOf(input));
    forgetHistory(input.sessionId);
    workflowHookManagers.unregister(turnKeyOf(input));
    workflowUsageStores.delete(input.workflowId);
    await releaseStreamWriter(input.streamId, input.sessionId);
    if (input.parent === undefined) await streamManager.endStream(input.streamId);
    else await stateStore.updateSubSessionRef(input.parent.sessionId, input.sessionId, { status: 'paused_awaiting_client' });
    // Last: the parked status is what lets resume() start a new run (from any process), which reactivates the
    // session stream. Published before endStream, a resume could be ended by this step.
    const parked = input.awaitingOnlyChildren === undefined ? 'suspended_client_tool' : 'suspended_awaiting_children';
    await recordSuspension(parked);
    signalRunChanged(input.runId);
    await emitRunEnded(stateStore, input, {
      status: parked,
      completionReason: 'suspended',
      stepCount: input.step,
      run,
      ...(input.parent === undefined ? {} : { parent: input.parent }),
    });
    dependencies.logger.info('client_tool.parked', { sessionId: input.sessionId, runId: input.runId });
    return { parked: true };
  }

  /**
   * Turn answered calls into results: client results/errors, approvals (approved → run the tool later in
   * this step's phase; denied → the reference tool_error), expired deadlines (synthetic tool_error). Streams
   * tool_end for the resolved results, records client usage and fires afterTool for them (onMessage fires
   * at the commit). Fires onAgentResumed once with `previousRunId`.
   */
  @DBOS.step({ name: 'ClientToolStep.resolve' })
  static async resolve(
    input: RunScope & { step: number; calls: HitlCall[]; submissions: Record<string, Submission>; expired: string[]; previousRunId: string },
  ): Promise<HitlResolution[]> {
    const { dependencies, hooks, emitter } = await stepEnvironment(input, input.step);
    const resolutions: HitlResolution[] = [];
    for (const hitl of input.calls) {
      const id = hitl.call.toolCallId;
      const resolution = resolveSubmission(hitl, input.submissions[id], input.expired.includes(id));
      resolutions.push(resolution);
      if (resolution.outcome === 'run') continue;
      const ending = resolution.outcome === 'result' ? { result: resolution.result } : { error: resolution.error ?? 'error' };
      await emitter.emit({ type: 'tool_end', toolCallId: id, toolName: hitl.call.toolName, ...ending });
      await dependencies.usageStore?.record([
        {
          id: `${input.runId}:hitl:${id}`,
          sessionId: input.sessionId,
          runId: input.runId,
          kind: 'tool',
          name: hitl.call.toolName,
          step: input.step,
          durationMs: 0,
          success: resolution.outcome === 'result',
          createdAt: Date.now(),
          rootSessionId: input.rootSessionId ?? input.sessionId,
        },
      ]);
    }
    await emitter.flush();
    await emitHumanWaits(dependencies.stateStore, input, resolutions, input.expired);
    await hooks.fire('onAgentResumed', { ...hookIdentity(input), previousRunId: input.previousRunId });
    for (const resolution of resolutions) {
      if (!firesAfterToolOnResolve(resolution)) continue;
      await hooks.fire('afterTool', {
        ...hookIdentity(input),
        toolCallId: resolution.call.call.toolCallId,
        toolName: resolution.call.call.toolName,
        input: resolution.call.call.input,
        ...(resolution.outcome === 'result' ? { result: resolution.result } : { error: resolution.error ?? 'error' }),
      });
    }
    return resolutions;
  }
}

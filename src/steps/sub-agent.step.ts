import { isParkedRunStatus } from '../orchestration/session-transitions.js';
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { AnyAgentConfig, SubAgentTool } from '../agent/index.js';
import { SessionAgentMismatchError, SessionAlreadyExistsError } from '../errors/index.js';
import { plannedToolMissing } from './planned-tool-missing.js';
import { findEffectiveTool, initializeAgentState, type PlannedSubAgentCall } from '../orchestration/index.js';
import { childRunId, standardWorkflowId } from '../orchestration/ids.js';
import { resumeTurnInput } from '../orchestration/resume-turn.js';
import { CHILD_TERMINATED_MESSAGE, decideChildCascade, type ChildOutcome } from '../orchestration/sub-agents.js';
import { recordedWorkflowInput, type AgentWorkflowInput, type RunScope } from '../orchestration/workflow-input.js';
import { takeForResume } from '../store/take-for-resume.js';
import { registerAgent } from './runtime-registry.js';
import { describeError, stepEnvironment, type StepEnvironment } from './step-scope.js';
import { chunkKey } from './stream-writers.js';
import { journalStamp } from '../journal/format.js';
import type { QueuePlacement } from '../orchestration/queue-placement.js';
import { childQueuePlacement } from './queue-check.js';

/**
 * Input of the sub-agent steps: the parent's scope, its step and the call.
 *
 * @example
 * const input: SubAgentStepInput = { ...scope, step: 1, call, rootSessionId: scope.sessionId, warmWindowMs: 60_000 };
 */
export interface SubAgentStepInput extends RunScope {
  step: number;
  call: PlannedSubAgentCall;
  rootSessionId: string;
  warmWindowMs: number;
  /** The parent run's queue placement (a queued child inherits its priority and partition key). */
  queue?: QueuePlacement;
}

/**
 * What a sub-agent step decided: start (or continue) the child's workflow with `child`, a child that is already
 * finished (its outcome), a child still running under an earlier parent run (wait for `workflowId`), or a
 * dispatch failure (the model gets `error`).
 *
 * @example
 * if (prepared.kind === 'start') await DBOS.startWorkflow(AgentWorkflows.runAgent, { workflowID: prepared.child.workflowId })(prepared.child);
 */
export type ChildPreparation =
  | { kind: 'start'; child: AgentWorkflowInput }
  | { kind: 'drained'; outcome: ChildOutcome }
  | { kind: 'wait'; workflowId: string }
  | { kind: 'failed'; error: string };

/**
 * Durable steps of ephemeral sub-agents, run by the parent's workflow: `dispatch` creates the child session
 * (`${parentSessionId}-sub-${toolCallId}`, recording parent and root), its run record and the parent's
 * `SubSessionRef`, and writes `subagent_start`; `prepareContinue` applies the cascade table to a child the parent
 * waited for when it suspended. Both are idempotent, so a replayed parent never creates a second child.
 *
 * @example
 * const prepared = await SubAgentStep.dispatch({ ...scope, step, call, rootSessionId, warmWindowMs });
 */
export class SubAgentStep {
  @DBOS.step({ name: 'SubAgentStep.dispatch' })
  static async dispatch(input: SubAgentStepInput): Promise<ChildPreparation> {
    const environment = await stepEnvironment(input, input.step);
    try {
      return { kind: 'start', child: await createChild(environment, input) };
    } catch (error) {
      return dispatchFailed(environment, input, error);
    }
  }

  @DBOS.step({ name: 'SubAgentStep.prepareContinue' })
  static async prepareContinue(input: SubAgentStepInput): Promise<ChildPreparation> {
    const environment = await stepEnvironment(input, input.step);
    const { stateStore } = environment.dependencies;
    const childId = input.call.childSessionId;
    const runId = childRunId(input.runId, input.call.toolCallId);
    try {
      for (;;) {
        const state = await stateStore.loadState(childId);
        const run = await stateStore.getCurrentRun(childId);
        // A replay of this step after it started the continuation: the same start again.
        if (run?.runId === runId) return { kind: 'start', child: recordedWorkflowInput(run.metadata) ?? (await createChild(environment, input)) };
        const action = decideChildCascade(state, run);
        if (action === 'drain_result') return { kind: 'drained', outcome: { kind: 'result', output: state?.output ?? null } };
        if (action === 'drain_failure') return { kind: 'drained', outcome: { kind: 'error', error: `Sub-agent failed: ${state?.error ?? 'no error text'}` } };
        if (action === 'drain_terminated') return { kind: 'drained', outcome: { kind: 'error', error: CHILD_TERMINATED_MESSAGE } };
        if (action === 'wait' && run?.workflowId !== undefined) return { kind: 'wait', workflowId: run.workflowId };
        if (action === 'respawn' || state === null) {
          if (state !== null) await stateStore.deleteSession(childId);
          return { kind: 'start', child: await createChild(environment, input) };
        }
        const parked = state.status === 'active' && isParkedRunStatus(run?.status) && state.suspendedStepId !== undefined;
        if (!(await takeForResume(stateStore, childId, state, parked))) continue;
        const turn = resumeTurnInput(state.pendingClientToolCalls ?? {}, run, runId, { mode: 'continue' });
        const queue = await childQueuePlacement(childAgentOf(environment.agent, input.call).queue, input.queue);
        const child = await recordChildRun(environment, input, runId, turn, queue);
        await stateStore.clearInterruptFlag(childId);
        await stateStore.updateSubSessionRef(input.sessionId, childId, { status: 'running' });
        return { kind: 'start', child };
      }
    } catch (error) {
      return dispatchFailed(environment, input, error);
    }
  }
}

/** The sub-agent tool's agent (registered in this process, so its child workflow finds it). */
function childAgentOf(parent: AnyAgentConfig, call: PlannedSubAgentCall): AnyAgentConfig {
  const tool = findEffectiveTool(parent, call.toolName) as SubAgentTool | undefined;
  if (tool?.agent === undefined) throw plannedToolMissing('sub-agent', call.toolName, parent.name);
  const agent = tool.agent;
  registerAgent(agent);
  return agent;
}

async function createChild(environment: StepEnvironment, input: SubAgentStepInput): Promise<AgentWorkflowInput> {
  const { stateStore } = environment.dependencies;
  const { call } = input;
  const agent = childAgentOf(environment.agent, call);
  const queue = await childQueuePlacement(agent.queue, input.queue);
  const runId = childRunId(input.runId, call.toolCallId);
  const initial = initializeAgentState(agent, { message: call.childMessage, state: call.input }, { runId });
  const existing = await stateStore.loadState(call.childSessionId);
  if (existing === null) {
    try {
      await stateStore.createSession(call.childSessionId, {
        agentType: agent.name,
        customState: initial.customState,
        status: 'active',
        mode: 'standard',
        streamId: input.streamId,
        parentSessionId: input.sessionId,
        rootSessionId: input.rootSessionId,
      });
    } catch (error) {
      if (!SessionAlreadyExistsError.isInstance(error)) throw error;
    }
  } else if (existing.agentType !== agent.name) {
    throw new SessionAgentMismatchError(call.childSessionId, existing.agentType, agent.name);
  }
  await stateStore.addSubSessionRefs(input.sessionId, [
    { subSessionId: call.childSessionId, agentType: agent.name, parentToolCallId: call.toolCallId, mode: 'ephemeral', status: 'running', startedAt: Date.now() },
  ]);
  const child = await recordChildRun(environment, input, runId, { userMessage: initial.message }, queue);
  await environment.emitter.emit(
    { type: 'subagent_start', subAgentType: agent.name, subSessionId: call.childSessionId, callId: call.toolCallId },
    { key: chunkKey(input, 'subagent_start', call.toolCallId) },
  );
  await environment.emitter.flush();
  return child;
}

/** Record the child's run (idempotent by run id) and build its workflow input. */
async function recordChildRun(
  environment: StepEnvironment,
  input: SubAgentStepInput,
  runId: string,
  turn: Pick<AgentWorkflowInput, 'userMessage' | 'resume'>,
  queue: QueuePlacement | undefined,
): Promise<AgentWorkflowInput> {
  const { stateStore, streamManager } = environment.dependencies;
  const { call } = input;
  const agentType = call.agentType;
  const workflowId = standardWorkflowId(agentType, call.childSessionId, runId);
  const startSequence = (await streamManager.getInfo(input.streamId))?.lastSequence ?? 0;
  const child: AgentWorkflowInput = {
    sessionId: call.childSessionId,
    runId,
    agentType,
    streamId: input.streamId,
    workflowId,
    startSequence,
    rootSessionId: input.rootSessionId,
    warmWindowMs: input.warmWindowMs,
    ...turn,
    parent: {
      sessionId: input.sessionId,
      agentType: input.agentType,
      workflowId: input.workflowId,
      callId: call.toolCallId,
      step: input.step,
      runId: input.runId,
      toolName: call.toolName,
    },
    journal: journalStamp(),
    ...(queue === undefined ? {} : { queue }),
    // A tree started by a remote caller stays in the caller's trace.
    ...(input.trace === undefined ? {} : { trace: input.trace }),
  };
  const recorded = await stateStore.createRun(call.childSessionId, {
    runId,
    status: 'running',
    stepCount: 0,
    startSequence,
    workflowId,
    startedAt: Date.now(),
    ...(turn.resume === undefined ? {} : { previousRunId: turn.resume.previousRunId }),
    metadata: { workflowInput: child },
  });
  return recordedWorkflowInput(recorded.metadata) ?? child;
}

/** A child that could not be started: logged, streamed as a failed tool_end, answered to the model. */
async function dispatchFailed(environment: StepEnvironment, input: SubAgentStepInput, error: unknown): Promise<ChildPreparation> {
  const reason = describeError(error);
  environment.dependencies.logger.error('subagent.dispatch_failed', { sessionId: input.sessionId, runId: input.runId, agentType: input.call.agentType });
  const text = `The sub-agent could not be started: ${reason}`;
  await environment.emitter.emit({ type: 'tool_end', toolCallId: input.call.toolCallId, toolName: input.call.toolName, error: text });
  await environment.emitter.flush();
  return { kind: 'failed', error: text };
}


import type { AnyAgentConfig, ClientTool } from '../agent/index.js';
import { findEffectiveTool, type PlannedToolCall, type StepProcessingPlan } from '../orchestration/index.js';
import type { HitlCall } from '../orchestration/hitl-types.js';
import { errorMessage, outcomeMessage, resultFor, type IndexedMessage } from '../orchestration/step-messages.js';
import type { ChildOutcome } from '../orchestration/sub-agents.js';
import type { ToolOutcome } from '../orchestration/tool-outcome.js';
import { ApprovalGateStep } from '../steps/approval-gate.step.js';
import type { RejectedToolCall } from '../steps/commit.step.js';
import { executeServerTool } from './server-tool-call.js';
import { soleToolCommit } from '../orchestration/sole-tool-commit.js';
import type { RunScope } from '../steps/step-scope.js';
import { runCompanionCalls, type WaitingCompanion } from './companion-dispatch.js';
import { remoteMessage, runRemoteCalls } from './remote-dispatch.js';
import { runChildren, type ChildCallOutcome } from './sub-agent-dispatch.js';
import type { TurnContext } from './turn-types.js';

/** What phase 1 of a step produced: results so far, and the calls that wait for humans. */
export interface PhaseOneResult {
  /** Server tool outcomes (onMessage/afterTool fire for them at the commit). */
  outcomes: ToolOutcome[];
  /** Result messages of phase 1 by call index: rejected calls, unsupported calls, tool outcomes. */
  results: IndexedMessage[];
  /** Client tools and approval-gated calls whose gate requires a human. */
  hitlCalls: HitlCall[];
  /** Sub-agent children that have not finished (waiting for a human, or interrupted): the step suspends for them. */
  waitingChildren: ChildCallOutcome[];
  /** Blocking companion calls whose child's turn parked for a human: the step suspends for them too. */
  waitingCompanions: WaitingCompanion[];
}

/**
 * Phase 1 of a step: evaluate approval gates (a checkpointed step each), then run the regular server tools,
 * ungated calls and sub-agent children in parallel (each tool its own durable step, each child its own child
 * workflow), then the remote sub-agent calls (`runRemoteCalls`). Client tools and gated calls are returned to wait
 * for humans, unfinished children to be waited for; companion calls run after them, in call order (`runCompanionCalls`).
 */
export async function runPhaseOne(context: TurnContext, step: number, plan: StepProcessingPlan): Promise<PhaseOneResult> {
  const { agent, scope } = context;
  const gated: HitlCall[] = [];
  const ungated: PlannedToolCall[] = [];
  for (const call of plan.approvalCalls) {
    const required = call.approval === 'always' || (await ApprovalGateStep.evaluate({ ...scope, step, call }));
    if (required) gated.push({ call, kind: 'approval', approvalId: call.toolCallId });
    else ungated.push(call);
  }
  // Tool steps and child dispatches are issued in one go (their durable ids are fixed at call time), then awaited.
  // A step whose only work is one tool call lets that call record the step's commit (see `soleToolCommit`).
  const commit = soleToolCommit(plan, agent);
  const tools = Promise.all(
    [...plan.serverToolCalls, ...ungated].map((call) =>
      executeServerTool({ ...scope, step, call, phase: 1, atStepStart: true, ...(commit === undefined ? {} : { commit }) }),
    ),
  );
  const children = await runChildren(context, step, plan.subAgentCalls, 'dispatch');
  const remote = await runRemoteCalls(context, step, plan.remoteCalls);
  const outcomes = await tools;
  const companions = await runCompanionCalls(context, step, plan.companionCalls);
  const finishedChildren = children.filter(({ outcome }) => isFinished(outcome));
  return {
    outcomes,
    results: [
      ...plan.toolErrors.map((failure) => ({ index: failure.index, message: failure.resultMessage })),
      ...companions.results,
      ...outcomes.map(outcomeMessage),
      ...finishedChildren.map(childMessage),
      ...remote.map(remoteMessage),
    ],
    hitlCalls: [...plan.clientToolCalls.map((call) => clientCall(agent, call)), ...gated],
    waitingChildren: children.filter(({ outcome }) => !isFinished(outcome)),
    waitingCompanions: companions.waiting,
  };
}

/** Phase 2: the step's finishWith tools, in order, each seeing the writes before it. */
export async function runPhaseTwo(scope: RunScope, step: number, calls: PlannedToolCall[]): Promise<ToolOutcome[]> {
  const outcomes: ToolOutcome[] = [];
  for (const call of calls) outcomes.push(await executeServerTool({ ...scope, step, call, phase: 2 }));
  return outcomes;
}

/** Approved gated calls: run the tools with their original input, in parallel. */
export async function runApproved(scope: RunScope, step: number, calls: PlannedToolCall[]): Promise<ToolOutcome[]> {
  return Promise.all(calls.map((call) => executeServerTool({ ...scope, step, call, phase: 1 })));
}

/** Calls answered without running, streamed as failed tool_end chunks by the commit. */
export function rejectedCalls(plan: StepProcessingPlan): RejectedToolCall[] {
  return plan.toolErrors.map(({ toolCallId, toolName, error }) => ({ toolCallId, toolName, error }));
}

function clientCall(agent: AnyAgentConfig, call: PlannedToolCall): HitlCall {
  const tool = findEffectiveTool(agent, call.toolName) as ClientTool | undefined;
  return { call, kind: 'client', approvalId: call.toolCallId, ...(tool?.timeoutMs === undefined ? {} : { timeoutMs: tool.timeoutMs }) };
}

/** A child that finished (with a result or an error) rather than one the step must wait for. */
export function isFinished(outcome: ChildOutcome): boolean {
  return outcome.kind === 'result' || outcome.kind === 'error';
}

/** The tool result message of a finished child (`toolName: 'subagent__<type>'`): its output, or an error for the model. */
export function childMessage({ call, outcome }: ChildCallOutcome): IndexedMessage {
  return outcome.kind === 'result'
    ? resultFor(call, outcome.output)
    : errorMessage(call, outcome.kind === 'error' ? outcome.error : 'The sub-agent did not finish.');
}

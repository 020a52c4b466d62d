import type { AnyAgentConfig, ClientTool } from '../agent/index.js';
import { findEffectiveTool, type PlannedToolCall, type StepProcessingPlan } from '../orchestration/index.js';
import type { HitlCall } from '../orchestration/hitl-types.js';
import { errorMessage, outcomeMessage, type IndexedMessage } from '../orchestration/step-messages.js';
import type { ToolOutcome } from '../orchestration/tool-outcome.js';
import { ApprovalGateStep } from '../steps/approval-gate.step.js';
import type { RejectedToolCall } from '../steps/commit.step.js';
import { ExecuteToolStep } from '../steps/execute-tool.step.js';
import type { RunScope } from '../steps/step-scope.js';

const UNSUPPORTED_YET = 'This tool cannot run in the current runtime version: sub-agent and companion tools are not enabled yet.';

/** What phase 1 of a step produced: results so far, and the calls that wait for humans. */
export interface PhaseOneResult {
  /** Server tool outcomes (onMessage/afterTool fire for them at the commit). */
  outcomes: ToolOutcome[];
  /** Result messages of phase 1 by call index: rejected calls, unsupported calls, tool outcomes. */
  results: IndexedMessage[];
  /** Client tools and approval-gated calls whose gate requires a human. */
  hitlCalls: HitlCall[];
}

/**
 * Phase 1 of a step: evaluate approval gates (a checkpointed step each), then run the regular server tools and
 * ungated calls in parallel, each its own durable step. Client tools and gated calls are returned to wait for
 * humans; sub-agent and companion calls are answered with an error until they are enabled.
 */
export async function runPhaseOne(agent: AnyAgentConfig, scope: RunScope, step: number, plan: StepProcessingPlan): Promise<PhaseOneResult> {
  const gated: HitlCall[] = [];
  const ungated: PlannedToolCall[] = [];
  for (const call of plan.approvalCalls) {
    const required = call.approval === 'always' || (await ApprovalGateStep.evaluate({ ...scope, step, call }));
    if (required) gated.push({ call, kind: 'approval', approvalId: call.toolCallId });
    else ungated.push(call);
  }
  const outcomes = await Promise.all([...plan.serverToolCalls, ...ungated].map((call) => ExecuteToolStep.execute({ ...scope, step, call, phase: 1 })));
  return {
    outcomes,
    results: [
      ...plan.toolErrors.map((failure) => ({ index: failure.index, message: failure.resultMessage })),
      ...[...plan.subAgentCalls, ...plan.companionCalls].map((call) => errorMessage(call, UNSUPPORTED_YET)),
      ...outcomes.map(outcomeMessage),
    ],
    hitlCalls: [...plan.clientToolCalls.map((call) => clientCall(agent, call)), ...gated],
  };
}

/** Phase 2: the step's finishWith tools, in order, each seeing the writes before it. */
export async function runPhaseTwo(scope: RunScope, step: number, calls: PlannedToolCall[]): Promise<ToolOutcome[]> {
  const outcomes: ToolOutcome[] = [];
  for (const call of calls) outcomes.push(await ExecuteToolStep.execute({ ...scope, step, call, phase: 2 }));
  return outcomes;
}

/** Approved gated calls: run the tools with their original input, in parallel. */
export async function runApproved(scope: RunScope, step: number, calls: PlannedToolCall[]): Promise<ToolOutcome[]> {
  return Promise.all(calls.map((call) => ExecuteToolStep.execute({ ...scope, step, call, phase: 1 })));
}

/** Calls answered without running, streamed as failed tool_end chunks by the commit. */
export function rejectedCalls(plan: StepProcessingPlan): RejectedToolCall[] {
  return [
    ...plan.toolErrors.map(({ toolCallId, toolName, error }) => ({ toolCallId, toolName, error })),
    ...[...plan.subAgentCalls, ...plan.companionCalls].map(({ toolCallId, toolName }) => ({ toolCallId, toolName, error: UNSUPPORTED_YET })),
  ];
}

function clientCall(agent: AnyAgentConfig, call: PlannedToolCall): HitlCall {
  const tool = findEffectiveTool(agent, call.toolName) as ClientTool | undefined;
  return { call, kind: 'client', approvalId: call.toolCallId, ...(tool?.timeoutMs === undefined ? {} : { timeoutMs: tool.timeoutMs }) };
}

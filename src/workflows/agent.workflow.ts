import { DBOS } from '@dbos-inc/dbos-sdk';
import type { AnyAgentConfig, ClientTool } from '../agent/index.js';
import { findEffectiveTool, planStepProcessing, shouldStopExecution, type PlannedToolCall, type StepProcessingPlan } from '../orchestration/index.js';
import { ApprovalGateStep } from '../steps/approval-gate.step.js';
import { CallLLMStep } from '../steps/call-llm.step.js';
import { ClientToolStep } from '../steps/client-tool.step.js';
import { CommitStep } from '../steps/commit.step.js';
import { ExecuteToolStep, type ToolOutcome } from '../steps/execute-tool.step.js';
import type { HitlCall, SuspensionRecord } from '../steps/hitl-types.js';
import { RunLifecycleStep } from '../steps/run-lifecycle.step.js';
import { resolveRegisteredAgent } from '../steps/runtime-registry.js';
import { describeError, type RunScope } from '../steps/step-scope.js';
import type { StepResult } from '../types/llm.js';
import type { Message, UserMessage } from '../types/message.js';
import type { AgentResult } from '../types/result.js';
import type { CompletionReason } from '../types/session.js';
import { waitForHumans } from './hitl-wait.js';
import { errorMessage, orderMessages, outcomeMessage, resolutionMessage, type IndexedMessage } from './step-messages.js';
import { checkpointIdFor } from './workflow-ids.js';

/** Arguments of the standard-mode agent workflow (small JSON: ids and the turn's input only). */
export interface AgentWorkflowInput extends RunScope {
  /** Stream sequence when the run started. */
  startSequence: number;
  userMessage?: UserMessage;
  initialState?: Record<string, unknown>;
  /** Root of the session tree (the session itself for top-level runs). */
  rootSessionId: string;
  /** How long a human-in-the-loop wait stays warm before the run parks. */
  warmWindowMs: number;
  /** Set when this run continues an earlier one (resume/retry). */
  resume?: {
    previousRunId: string;
    /** A parked (or interrupted-while-waiting) step to settle before the next LLM call. */
    suspension?: SuspensionRecord;
  };
}

const UNSUPPORTED_YET = 'This tool cannot run in the current runtime version: sub-agent and companion tools are not enabled yet.';

type Finish = (
  status: 'completed' | 'failed' | 'interrupted',
  completionReason: CompletionReason,
  stepCount: number,
  extra: { output?: unknown; error?: string },
) => Promise<AgentResult>;

/** What settling a step's human-answered calls led to. */
type Settled = { kind: 'continue' } | { kind: 'done'; result: AgentResult };

/**
 * The standard-mode agent loop as a DBOS workflow. Deterministic: only durable steps, `DBOS.now/recv`,
 * pure planning and stop checks. Per step: CallLLMStep → approval gates → phase-1 tools in parallel →
 * (human-in-the-loop wait: warm, then parked) → phase-2 finishWith tools in order → CommitStep → stop check;
 * then FinishRunStep.
 */
export class AgentWorkflows {
  @DBOS.workflow({ name: 'helix.runAgent' })
  static async runAgent(input: AgentWorkflowInput): Promise<AgentResult> {
    const agent = await resolveRegisteredAgent(input.agentType);
    const scope: RunScope = { sessionId: input.sessionId, runId: input.runId, agentType: input.agentType, streamId: input.streamId, workflowId: input.workflowId };
    const finish: Finish = (status, completionReason, stepCount, extra) =>
      RunLifecycleStep.finish({ ...scope, status, completionReason, stepCount, ...extra });

    await RunLifecycleStep.begin({
      ...scope,
      // A message sent with a resume that settles a parked step goes after that step's tool results.
      ...(input.userMessage === undefined || input.resume?.suspension !== undefined ? {} : { userMessage: input.userMessage }),
      ...(input.initialState === undefined ? {} : { initialState: input.initialState }),
      ...(input.resume === undefined ? {} : { resumedFrom: { previousRunId: input.resume.previousRunId, settlesSuspension: input.resume.suspension !== undefined } }),
    });

    let step = 0;
    try {
      const suspension = input.resume?.suspension;
      if (suspension !== undefined) {
        // Messages of earlier resumes that parked again are carried in the record until the step settles.
        const tail = [...(suspension.tail ?? []), ...(input.userMessage === undefined ? [] : [input.userMessage])];
        const settled = await settleHumans(agent, scope, input, finish, {
          step: 0,
          head: [],
          priorResults: [],
          priorOutcomes: [],
          suspension: { ...suspension, step: 0, stepId: checkpointIdFor(input.runId, 0), ...(tail.length === 0 ? {} : { tail }) },
          previousRunId: input.resume?.previousRunId ?? input.runId,
          tail,
        });
        if (settled.kind === 'done') return settled.result;
      }
      for (;;) {
        step += 1;
        const llm = await CallLLMStep.call({ ...scope, step, startSequence: input.startSequence });
        if (llm.kind === 'interrupted') {
          return await finish('interrupted', 'interrupted', step - 1, llm.reason === undefined ? {} : { error: llm.reason });
        }
        const plan = planStepProcessing(llm.result, agent, { sessionId: input.sessionId, runId: input.runId, step });

        const gated: HitlCall[] = [];
        const ungated: PlannedToolCall[] = [];
        for (const call of plan.approvalCalls) {
          const required = call.approval === 'always' || (await ApprovalGateStep.evaluate({ ...scope, step, call }));
          if (required) gated.push({ call, kind: 'approval', approvalId: call.toolCallId });
          else ungated.push(call);
        }
        const hitlCalls: HitlCall[] = [...plan.clientToolCalls.map((call) => clientCall(agent, call)), ...gated];

        const phaseOne = await Promise.all(
          [...plan.serverToolCalls, ...ungated].map((call) => ExecuteToolStep.execute({ ...scope, step, call, phase: 1 })),
        );
        const priorResults: IndexedMessage[] = [
          ...plan.toolErrors.map((failure) => ({ index: failure.index, message: failure.resultMessage })),
          ...[...plan.subAgentCalls, ...plan.companionCalls].map((call) => errorMessage(call, UNSUPPORTED_YET)),
          ...phaseOne.map(outcomeMessage),
        ];
        const suspensionRecord: SuspensionRecord = {
          step,
          stepId: checkpointIdFor(input.runId, step),
          hitlCalls,
          finishWithCalls: plan.finishWithCalls,
          ...(plan.finishCall === undefined ? {} : { finishCall: { output: plan.finishCall.output, resultMessage: plan.finishCall.resultMessage } }),
        };

        if (hitlCalls.length > 0) {
          const settled = await settleHumans(agent, scope, input, finish, {
            step,
            head: [plan.assistantMessage],
            priorResults,
            priorOutcomes: phaseOne,
            suspension: suspensionRecord,
            previousRunId: input.runId,
            stepResult: llm.result,
          });
          if (settled.kind === 'done') return settled.result;
          continue;
        }

        const phaseTwo = await runPhaseTwo(scope, step, plan.finishWithCalls);
        const outcomes = [...phaseOne, ...phaseTwo];
        const committed = await CommitStep.commit({
          ...scope,
          step,
          messages: orderMessages(
            [plan.assistantMessage],
            [...priorResults, ...phaseTwo.map(outcomeMessage), ...finishMessage(plan)],
            plan.finishReminder === undefined ? [] : [plan.finishReminder],
          ),
          toolOutcomes: outcomes,
          rejectedCalls: rejectedCalls(plan),
          returnState: agent.stopWhen !== undefined,
        });
        const stop = await stopIfDone(agent, finish, step, llm.result, committed.customState, plan.finishCall?.output, phaseTwo);
        if (stop !== undefined) return stop;
      }
    } catch (error) {
      return await finish('failed', 'failed', step, { error: describeError(error) });
    }
  }
}

/**
 * Wait for (or drain) a step's human-answered calls, run what they unlock (approved tools, then the
 * step's finishWith tools), commit the step and check whether the run stops.
 */
async function settleHumans(
  agent: AnyAgentConfig,
  scope: RunScope,
  input: AgentWorkflowInput,
  finish: Finish,
  context: {
    step: number;
    head: Message[];
    priorResults: IndexedMessage[];
    priorOutcomes: ToolOutcome[];
    suspension: SuspensionRecord;
    previousRunId: string;
    stepResult?: StepResult;
    /** Messages to commit after the step's results (a resume's user message). */
    tail?: Message[];
  },
): Promise<Settled> {
  const { step, suspension } = context;
  const waited = await waitForHumans(scope, {
    step,
    calls: suspension.hitlCalls,
    rootSessionId: input.rootSessionId,
    warmWindowMs: input.warmWindowMs,
    messages: orderMessages(context.head, context.priorResults),
    toolOutcomes: context.priorOutcomes,
    suspension,
  });
  if (waited.kind === 'parked') {
    return {
      kind: 'done',
      result: {
        sessionId: scope.sessionId,
        runId: scope.runId,
        status: 'suspended_client_tool',
        completionReason: 'suspended',
        stepCount: step,
        suspended: { reason: 'client_tool', toolCallIds: suspension.hitlCalls.map(({ call }) => call.toolCallId), stepId: suspension.stepId },
      },
    };
  }
  if (waited.kind === 'interrupted') {
    return { kind: 'done', result: await finish('interrupted', 'interrupted', step, waited.reason === undefined ? {} : { error: waited.reason }) };
  }

  const resolutions = await ClientToolStep.resolve({
    ...scope,
    step,
    calls: suspension.hitlCalls,
    submissions: waited.submissions,
    expired: waited.expired,
    previousRunId: context.previousRunId,
  });
  const approved = await Promise.all(
    resolutions.filter((resolution) => resolution.outcome === 'run').map(({ call }) => ExecuteToolStep.execute({ ...scope, step, call: call.call, phase: 1 })),
  );
  const phaseTwo = await runPhaseTwo(scope, step, suspension.finishWithCalls);
  const finishCall = suspension.finishCall;
  const committed = await CommitStep.commit({
    ...scope,
    step,
    messages: orderMessages(context.head, [
      ...context.priorResults,
      ...resolutions.filter((resolution) => resolution.outcome !== 'run').map(resolutionMessage),
      ...approved.map(outcomeMessage),
      ...phaseTwo.map(outcomeMessage),
      ...(finishCall === undefined ? [] : [{ index: Number.MAX_SAFE_INTEGER, message: finishCall.resultMessage as Message }]),
    ], context.tail ?? []),
    toolOutcomes: [...context.priorOutcomes, ...approved, ...phaseTwo],
    rejectedCalls: [],
    returnState: agent.stopWhen !== undefined,
    settledHitl: { toolCallIds: suspension.hitlCalls.map(({ call }) => call.toolCallId), expired: waited.expired, rootSessionId: input.rootSessionId },
  });
  if (context.stepResult === undefined) {
    const finishWith = phaseTwo.find((outcome) => outcome.success);
    if (finishCall !== undefined) return { kind: 'done', result: await finish('completed', 'finish_tool', step, { output: finishCall.output }) };
    if (finishWith !== undefined) return { kind: 'done', result: await finish('completed', 'finish_tool', step, { output: finishWith.result }) };
    return { kind: 'continue' };
  }
  const stop = await stopIfDone(agent, finish, step, context.stepResult, committed.customState, finishCall?.output, phaseTwo, finishCall !== undefined);
  return stop === undefined ? { kind: 'continue' } : { kind: 'done', result: stop };
}

async function runPhaseTwo(scope: RunScope, step: number, calls: PlannedToolCall[]): Promise<ToolOutcome[]> {
  const outcomes: ToolOutcome[] = [];
  for (const call of calls) outcomes.push(await ExecuteToolStep.execute({ ...scope, step, call, phase: 2 }));
  return outcomes;
}

async function stopIfDone(
  agent: AnyAgentConfig,
  finish: Finish,
  step: number,
  stepResult: StepResult,
  customState: Record<string, unknown> | undefined,
  finishOutput: unknown,
  phaseTwo: ToolOutcome[],
  hasFinish = finishOutput !== undefined,
): Promise<AgentResult | undefined> {
  const finishWith = phaseTwo.find((outcome) => outcome.success);
  const decision = shouldStopExecution({
    agent,
    stepResult,
    stepCount: step,
    customState: customState ?? {},
    ...(hasFinish ? { finishOutput: { output: finishOutput } } : {}),
    ...(finishWith === undefined ? {} : { finishWithOutput: { output: finishWith.result } }),
  });
  if (!decision.stop) return undefined;
  return finish(decision.status, decision.reason, step, {
    ...(decision.output === undefined ? {} : { output: decision.output }),
    ...(decision.error === undefined ? {} : { error: decision.error }),
  });
}

function clientCall(agent: AnyAgentConfig, call: PlannedToolCall): HitlCall {
  const tool = findEffectiveTool(agent, call.toolName) as ClientTool | undefined;
  return { call, kind: 'client', approvalId: call.toolCallId, ...(tool?.timeoutMs === undefined ? {} : { timeoutMs: tool.timeoutMs }) };
}

function finishMessage(plan: StepProcessingPlan): IndexedMessage[] {
  return plan.finishCall === undefined ? [] : [{ index: plan.finishCall.index, message: plan.finishCall.resultMessage }];
}

/** Calls answered without running, streamed as failed tool_end chunks by the commit. */
function rejectedCalls(plan: StepProcessingPlan): Array<{ toolCallId: string; toolName: string; error: string }> {
  return [
    ...plan.toolErrors.map(({ toolCallId, toolName, error }) => ({ toolCallId, toolName, error })),
    ...[...plan.subAgentCalls, ...plan.companionCalls].map(({ toolCallId, toolName }) => ({ toolCallId, toolName, error: UNSUPPORTED_YET })),
  ];
}

/**
 * Evaluate the DBOS workflow decorators of the agent runtime. Call before `DBOS.launch()`; idempotent (the
 * `DBOSAgentExecutor` constructor calls it too).
 *
 * @example
 * registerDBOSAgentWorkflows();
 * await DBOS.launch();
 */
export function registerDBOSAgentWorkflows(): void {
  // Importing this module evaluated the decorators; referencing the class keeps bundlers from dropping it.
  void AgentWorkflows;
}

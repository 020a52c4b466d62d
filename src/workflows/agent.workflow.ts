import { DBOS } from '@dbos-inc/dbos-sdk';
import { planStepProcessing, shouldStopExecution, type StepProcessingPlan } from '../orchestration/index.js';
import { CallLLMStep } from '../steps/call-llm.step.js';
import { CommitStep, type RejectedToolCall } from '../steps/commit.step.js';
import { ExecuteToolStep, type ToolOutcome } from '../steps/execute-tool.step.js';
import { RunLifecycleStep } from '../steps/run-lifecycle.step.js';
import { resolveRegisteredAgent } from '../steps/runtime-registry.js';
import { describeError, type RunScope } from '../steps/step-scope.js';
import type { Message, UserMessage } from '../types/message.js';
import type { AgentResult } from '../types/result.js';
import type { CompletionReason } from '../types/session.js';

/** Arguments of the standard-mode agent workflow (small JSON: ids and the turn's input only). */
export interface AgentWorkflowInput extends RunScope {
  /** Stream sequence when the run started. */
  startSequence: number;
  userMessage?: UserMessage;
  initialState?: Record<string, unknown>;
}

const UNSUPPORTED_YET =
  'This tool cannot run in the current runtime version: client-executed, approval-gated, sub-agent and companion tools are not enabled yet.';

/**
 * The standard-mode agent loop as a DBOS workflow. Deterministic: only durable steps, pure planning and
 * stop checks. Per step: CallLLMStep → phase-1 tools in parallel (ExecuteToolStep each) → phase-2
 * finishWith tools in order → CommitStep → stop check; then FinishRunStep.
 */
export class AgentWorkflows {
  @DBOS.workflow({ name: 'helix.runAgent' })
  static async runAgent(input: AgentWorkflowInput): Promise<AgentResult> {
    const agent = await resolveRegisteredAgent(input.agentType);
    const scope: RunScope = {
      sessionId: input.sessionId,
      runId: input.runId,
      agentType: input.agentType,
      streamId: input.streamId,
      workflowId: input.workflowId,
    };
    const finish = (status: 'completed' | 'failed' | 'interrupted', completionReason: CompletionReason, stepCount: number, extra: { output?: unknown; error?: string }) =>
      RunLifecycleStep.finish({ ...scope, status, completionReason, stepCount, ...extra });

    await RunLifecycleStep.begin({
      ...scope,
      ...(input.userMessage === undefined ? {} : { userMessage: input.userMessage }),
      ...(input.initialState === undefined ? {} : { initialState: input.initialState }),
    });

    let step = 0;
    try {
      for (;;) {
        step += 1;
        const llm = await CallLLMStep.call({ ...scope, step, startSequence: input.startSequence });
        if (llm.kind === 'interrupted') {
          return await finish('interrupted', 'interrupted', step - 1, llm.reason === undefined ? {} : { error: llm.reason });
        }
        const plan = planStepProcessing(llm.result, agent, { sessionId: input.sessionId, runId: input.runId, step });

        const phaseOne = await Promise.all(plan.serverToolCalls.map((call) => ExecuteToolStep.execute({ ...scope, step, call, phase: 1 })));
        const phaseTwo: ToolOutcome[] = [];
        for (const call of plan.finishWithCalls) phaseTwo.push(await ExecuteToolStep.execute({ ...scope, step, call, phase: 2 }));
        const finishWith = phaseTwo.find((outcome) => outcome.success);

        const rejected = unsupportedCalls(plan);
        const outcomes = [...phaseOne, ...phaseTwo];
        const committed = await CommitStep.commit({
          ...scope,
          step,
          messages: stepMessages(plan, outcomes, rejected),
          toolOutcomes: outcomes,
          rejectedCalls: [...plan.toolErrors.map(({ toolCallId, toolName, error }) => ({ toolCallId, toolName, error })), ...rejected],
          returnState: agent.stopWhen !== undefined,
        });

        const decision = shouldStopExecution({
          agent,
          stepResult: llm.result,
          stepCount: step,
          customState: committed.customState ?? {},
          ...(plan.finishCall === undefined ? {} : { finishOutput: { output: plan.finishCall.output } }),
          ...(finishWith === undefined ? {} : { finishWithOutput: { output: finishWith.result } }),
        });
        if (decision.stop) {
          return await finish(decision.status, decision.reason, step, {
            ...(decision.output === undefined ? {} : { output: decision.output }),
            ...(decision.error === undefined ? {} : { error: decision.error }),
          });
        }
      }
    } catch (error) {
      return await finish('failed', 'failed', step, { error: describeError(error) });
    }
  }
}

/** Calls of kinds this runtime version does not run yet: answered with an error result, never a hang. */
function unsupportedCalls(plan: StepProcessingPlan): RejectedToolCall[] {
  return [...plan.clientToolCalls, ...plan.approvalCalls, ...plan.subAgentCalls, ...plan.companionCalls].map((call) => ({
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    error: UNSUPPORTED_YET,
  }));
}

/** The step's messages in conversation order: assistant, then one result per call by index, then a reminder. */
function stepMessages(plan: StepProcessingPlan, outcomes: ToolOutcome[], rejected: RejectedToolCall[]): Message[] {
  const results: Array<{ index: number; message: Message }> = [
    ...plan.toolErrors.map((failure) => ({ index: failure.index, message: failure.resultMessage as Message })),
    ...outcomes.map((outcome) => ({
      index: outcome.index,
      message: {
        id: outcome.resultMessageId,
        role: 'tool' as const,
        toolCallId: outcome.toolCallId,
        toolName: outcome.toolName,
        content: outcome.success ? outcome.result : outcome.error,
        ...(outcome.success ? {} : { isError: true }),
      },
    })),
  ];
  if (plan.finishCall !== undefined) results.push({ index: plan.finishCall.index, message: plan.finishCall.resultMessage });
  const unsupported = [...plan.clientToolCalls, ...plan.approvalCalls, ...plan.subAgentCalls, ...plan.companionCalls];
  for (const call of unsupported) {
    const error = rejected.find((entry) => entry.toolCallId === call.toolCallId)?.error ?? UNSUPPORTED_YET;
    results.push({
      index: call.index,
      message: { id: call.resultMessageId, role: 'tool', toolCallId: call.toolCallId, toolName: call.toolName, content: error, isError: true },
    });
  }
  results.sort((left, right) => left.index - right.index);
  return [plan.assistantMessage, ...results.map((entry) => entry.message), ...(plan.finishReminder === undefined ? [] : [plan.finishReminder])];
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

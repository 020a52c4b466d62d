import type { Message } from '../types/message.js';
import type { StepResult } from '../types/llm.js';
import { shouldStopExecution } from '../orchestration/index.js';
import type { SuspensionRecord } from '../orchestration/hitl-types.js';
import { orderMessages, outcomeMessage, resolutionMessage, type IndexedMessage } from '../orchestration/step-messages.js';
import type { ToolOutcome } from '../orchestration/tool-outcome.js';
import { ClientToolStep } from '../steps/client-tool.step.js';
import { CommitStep } from '../steps/commit.step.js';
import { waitForHumans } from './hitl-wait.js';
import { runApproved, runPhaseTwo } from './tool-dispatch.js';
import { finished, outcomeOfStop, type TurnContext, type TurnOutcome } from './turn-types.js';

/** A step whose human-answered calls are to be settled. */
export interface SettleInput {
  step: number;
  /** The step's assistant message (empty when a resumed run settles a step of an earlier run). */
  head: Message[];
  /** Results the step already has (phase 1, rejected calls). */
  priorResults: IndexedMessage[];
  priorOutcomes: ToolOutcome[];
  suspension: SuspensionRecord;
  previousRunId: string;
  /** The step's LLM result; absent when settling a step parked by an earlier run. */
  stepResult?: StepResult;
  /** Messages to commit after the step's results (a resume's user message). */
  tail?: Message[];
}

/**
 * Wait for (or drain) a step's human-answered calls, run what they unlock (approved tools, then the step's
 * finishWith tools), commit the step and check whether the run stops (`shouldStopExecution`, the one stop path).
 * Returns the turn's outcome when it ends here (parked, interrupted, finished), `undefined` to go on.
 */
export async function settleHumans(context: TurnContext, settle: SettleInput): Promise<TurnOutcome | undefined> {
  const { agent, scope, input } = context;
  const { step, suspension } = settle;
  const waited = await waitForHumans(scope, {
    step,
    calls: suspension.hitlCalls,
    rootSessionId: input.rootSessionId,
    warmWindowMs: input.warmWindowMs,
    messages: orderMessages(settle.head, settle.priorResults),
    toolOutcomes: settle.priorOutcomes,
    suspension,
  });
  if (waited.kind === 'parked') {
    return { kind: 'parked', stepCount: step, toolCallIds: suspension.hitlCalls.map(({ call }) => call.toolCallId), stepId: suspension.stepId };
  }
  if (waited.kind === 'interrupted') return finished('interrupted', 'interrupted', step, waited.reason === undefined ? {} : { error: waited.reason });

  const resolutions = await ClientToolStep.resolve({
    ...scope,
    step,
    calls: suspension.hitlCalls,
    submissions: waited.submissions,
    expired: waited.expired,
    previousRunId: settle.previousRunId,
  });
  const approved = await runApproved(
    scope,
    step,
    resolutions.filter((resolution) => resolution.outcome === 'run').map(({ call }) => call.call),
  );
  const phaseTwo = await runPhaseTwo(scope, step, suspension.finishWithCalls);
  const finishCall = suspension.finishCall;
  const committed = await CommitStep.commit({
    ...scope,
    step,
    messages: orderMessages(
      settle.head,
      [
        ...settle.priorResults,
        ...resolutions.filter((resolution) => resolution.outcome !== 'run').map(resolutionMessage),
        ...approved.map(outcomeMessage),
        ...phaseTwo.map(outcomeMessage),
        ...(finishCall === undefined ? [] : [{ index: Number.MAX_SAFE_INTEGER, message: finishCall.resultMessage as Message }]),
      ],
      settle.tail ?? [],
    ),
    toolOutcomes: [...settle.priorOutcomes, ...approved, ...phaseTwo],
    rejectedCalls: [],
    returnState: agent.stopWhen !== undefined,
    settledHitl: { toolCallIds: suspension.hitlCalls.map(({ call }) => call.toolCallId), expired: waited.expired, rootSessionId: input.rootSessionId },
  });
  const finishWith = phaseTwo.find((outcome) => outcome.success);
  const decision = shouldStopExecution({
    agent,
    ...(settle.stepResult === undefined ? {} : { stepResult: settle.stepResult }),
    stepCount: step,
    customState: committed.customState ?? {},
    ...(finishCall === undefined ? {} : { finishOutput: { output: finishCall.output } }),
    ...(finishWith === undefined ? {} : { finishWithOutput: { output: finishWith.result } }),
  });
  return outcomeOfStop(decision, step);
}

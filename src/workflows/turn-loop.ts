import { holdIfDraining } from './warm-waits.js';
import { planStepProcessing, type StepProcessingPlan } from '../orchestration/index.js';
import type { SuspensionRecord } from '../orchestration/hitl-types.js';
import { checkpointIdFor } from '../orchestration/ids.js';
import { orderMessages, outcomeMessage, type IndexedMessage } from '../orchestration/step-messages.js';
import { CallLLMStep } from '../steps/call-llm.step.js';
import { CommitStep, type PendingStepCommit } from '../steps/commit.step.js';
import { settleStep } from './hitl-settle.js';
import { rejectedCalls, runPhaseOne, runPhaseTwo } from './tool-dispatch.js';
import { finished, stopAfterStep, type TurnContext, type TurnOutcome } from './turn-types.js';

/**
 * The loop of one turn, deterministic: settle a parked step first (resume), then per step CallLLMStep → pure
 * planning → phase 1 (tools, gates) → human-in-the-loop wait when needed → phase 2 (finishWith) → the step's
 * commit → the stop check. The commit runs inside the next CallLLMStep (or FinishRunStep, see `progress.commit`),
 * not as a step of its own, unless a `stopWhen` needs the committed state first. Returns how the turn ended; the caller records it (FinishRunStep).
 */
export async function runTurn(context: TurnContext): Promise<TurnOutcome> {
  const { agent, scope, input, progress } = context;
  const suspension = input.resume?.suspension;
  if (suspension !== undefined) {
    // Messages of earlier resumes that parked again are carried in the record until the step settles.
    const tail = [...(suspension.tail ?? []), ...(input.userMessage === undefined ? [] : [input.userMessage])];
    const settled = await settleStep(context, {
      step: 0,
      head: [],
      priorResults: [],
      priorOutcomes: [],
      suspension: { ...suspension, step: 0, stepId: checkpointIdFor(input.runId, 0), ...(tail.length === 0 ? {} : { tail }) },
      previousRunId: input.resume?.previousRunId ?? input.runId,
      tail,
    });
    if (settled !== undefined) return settled;
  }
  for (;;) {
    // A draining process stops here: the last step is recorded, the next runs wherever the run is continued.
    await holdIfDraining();
    const step = (progress.step += 1);
    const llm = await CallLLMStep.call({
      ...scope,
      step,
      startSequence: input.startSequence,
      ...(progress.commit === undefined ? {} : { commit: progress.commit }),
    });
    delete progress.commit;
    if (llm.kind === 'interrupted') return finished('interrupted', 'interrupted', step - 1, llm.reason === undefined ? {} : { error: llm.reason });
    const plan = planStepProcessing(llm.result, agent, { sessionId: input.sessionId, runId: input.runId, step });
    const outputFailure = plan.toolErrors.find((failure) => failure.outputFailure !== undefined)?.outputFailure;
    if (outputFailure !== undefined) progress.outputFailure = outputFailure;
    const phaseOne = await runPhaseOne(context, step, plan);

    if (phaseOne.hitlCalls.length > 0 || phaseOne.waitingChildren.length > 0 || phaseOne.waitingCompanions.length > 0) {
      const settled = await settleStep(context, {
        step,
        head: [plan.assistantMessage],
        priorResults: phaseOne.results,
        priorOutcomes: phaseOne.outcomes,
        suspension: suspensionOf(input.runId, step, plan, phaseOne.hitlCalls),
        previousRunId: input.runId,
        stepResult: llm.result,
        waitingChildren: phaseOne.waitingChildren,
        waitingCompanions: phaseOne.waitingCompanions,
      });
      if (settled !== undefined) return settled;
      continue;
    }

    const phaseTwo = await runPhaseTwo(scope, step, plan.finishWithCalls);
    const commit: PendingStepCommit = {
      step,
      messages: orderMessages(
        [plan.assistantMessage],
        [...phaseOne.results, ...phaseTwo.map(outcomeMessage), ...finishMessage(plan)],
        plan.finishReminder === undefined ? [] : [plan.finishReminder],
      ),
      toolOutcomes: [...phaseOne.outcomes, ...phaseTwo],
      rejectedCalls: rejectedCalls(plan),
    };
    // Committed already when the step's only tool call recorded it. A stopWhen reads the committed state, so the
    // step commits now; otherwise the next step (or the finish) does.
    let customState: Record<string, unknown> | undefined;
    if (phaseOne.outcomes.some((outcome) => outcome.committed === true)) delete progress.commit;
    else if (agent.stopWhen === undefined) progress.commit = commit;
    else ({ customState } = await CommitStep.commit({ ...scope, ...commit, returnState: true }));
    const stop = stopAfterStep(agent, step, {
      stepResult: llm.result,
      customState,
      ...(plan.finishCall === undefined ? {} : { finishCall: plan.finishCall }),
      phaseTwo,
      ...(progress.outputFailure === undefined ? {} : { outputFailure: progress.outputFailure }),
    });
    if (stop !== undefined) return stop;
  }
}

/** What a parked step leaves for resume(): its human calls, its finishWith calls and a valid `__finish__`. */
function suspensionOf(runId: string, step: number, plan: StepProcessingPlan, hitlCalls: SuspensionRecord['hitlCalls']): SuspensionRecord {
  return {
    step,
    stepId: checkpointIdFor(runId, step),
    hitlCalls,
    finishWithCalls: plan.finishWithCalls,
    ...(plan.finishCall === undefined ? {} : { finishCall: { output: plan.finishCall.output, resultMessage: plan.finishCall.resultMessage } }),
  };
}

function finishMessage(plan: StepProcessingPlan): IndexedMessage[] {
  return plan.finishCall === undefined ? [] : [{ index: plan.finishCall.index, message: plan.finishCall.resultMessage }];
}

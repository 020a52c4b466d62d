import type { Message } from '../types/message.js';
import type { StepDecisionResult } from '../orchestration/step-decision-result.js';
import { suspendedCallsOf } from '../orchestration/hitl-decisions.js';
import type { SuspensionRecord } from '../orchestration/hitl-types.js';
import { orderMessages, outcomeMessage, resolutionMessage, type IndexedMessage } from '../orchestration/step-messages.js';
import type { ToolOutcome } from '../orchestration/tool-outcome.js';
import { ClientToolStep } from '../steps/client-tool.step.js';
import { CommitStep } from '../steps/commit.step.js';
import type { SuspendedChildWait } from '../types/session.js';
import { continueCompanionCalls, type WaitingCompanion } from './companion-dispatch.js';
import { waitForHumans, type HitlWaitOutcome } from './hitl-wait.js';
import { runChildren, type ChildCallOutcome } from './sub-agent-dispatch.js';
import { childMessage, isFinished, runApproved, runPhaseTwo } from './tool-dispatch.js';
import { finished, stopAfterStep, type TurnContext, type TurnOutcome } from './turn-types.js';

/** A step that waits for humans or for sub-agent children, to be settled. */
export interface SettleInput {
  step: number;
  /** The step's assistant message (empty when a resumed run settles a step of an earlier run). */
  head: Message[];
  /** Results the step already has (phase 1, rejected calls, finished children). */
  priorResults: IndexedMessage[];
  priorOutcomes: ToolOutcome[];
  suspension: SuspensionRecord;
  previousRunId: string;
  /** The step's LLM result; absent when settling a step parked by an earlier run. */
  stepResult?: StepDecisionResult;
  /** Messages to commit after the step's results (a resume's user message). */
  tail?: Message[];
  /** Children still waiting after phase 1; absent on a resumed run, which continues `suspension.childCalls`. */
  waitingChildren?: ChildCallOutcome[];
  /** Blocking companion calls whose child parked, after phase 1; absent on a resumed run (`suspension.companionCalls`). */
  waitingCompanions?: WaitingCompanion[];
}

/** Attempts to park for children while other writers (a child's ownership write on the root) move the version. */
const MAX_PARK_ATTEMPTS = 20;

/**
 * Settle a step that waits: first its sub-agent children and blocking companions (a resumed run continues them
 * per the cascade tables: a companion's parked turn is resumed and its real result goes to the waiting call),
 * parking again if one still waits for a human or ending `interrupted` if one was interrupted; then its humans
 * (warm, then parked); then what the answers unlock (approved tools, the step's finishWith tools), the commit and
 * the stop check (`shouldStopExecution`, the one stop path). Returns the turn's outcome when it ends here
 * (parked, interrupted, finished), `undefined` to go on with the next LLM call.
 */
export async function settleStep(context: TurnContext, settle: SettleInput): Promise<TurnOutcome | undefined> {
  const { agent, scope, input } = context;
  const { step } = settle;
  const children = settle.waitingChildren ?? (await runChildren(context, step, settle.suspension.childCalls ?? [], 'continue'));
  const companions =
    settle.waitingCompanions === undefined
      ? await continueCompanionCalls(context, step, settle.suspension.companionCalls ?? [])
      : { results: [], waiting: settle.waitingCompanions };
  const priorResults = [...settle.priorResults, ...children.filter(({ outcome }) => isFinished(outcome)).map(childMessage), ...companions.results];
  const waiting = children.filter(({ outcome }) => !isFinished(outcome));
  const suspension: SuspensionRecord = {
    ...settle.suspension,
    childCalls: waiting.map(({ call }) => call),
    companionCalls: companions.waiting.map(({ wait }) => wait),
  };
  if (waiting.length > 0 || companions.waiting.length > 0)
    return parkForChildren(context, { ...settle, priorResults, suspension }, waiting, companions.waiting);

  const waited: HitlWaitOutcome =
    suspension.hitlCalls.length === 0
      ? { kind: 'answered', submissions: {}, expired: [] }
      : await waitForHumans(scope, {
          step,
          calls: suspension.hitlCalls,
          rootSessionId: input.rootSessionId,
          warmWindowMs: input.warmWindowMs,
          messages: orderMessages(settle.head, priorResults),
          toolOutcomes: settle.priorOutcomes,
          suspension,
          ...(input.parent === undefined ? {} : { parent: input.parent }),
        });
  if (waited.kind === 'parked') {
    const calls = suspendedCallsOf(suspension.hitlCalls);
    return { kind: 'parked', stepCount: step, toolCallIds: calls.map(({ toolCallId }) => toolCallId), calls, stepId: suspension.stepId, reason: 'client_tool' };
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
        ...priorResults,
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
  return stopAfterStep(agent, step, {
    ...(settle.stepResult === undefined ? {} : { stepResult: settle.stepResult }),
    customState: committed.customState,
    ...(finishCall === undefined ? {} : { finishCall }),
    phaseTwo,
    ...(context.progress.outputFailure === undefined ? {} : { outputFailure: context.progress.outputFailure }),
  });
}

/**
 * Children or blocking companions still wait (for a human) or a child was interrupted: announce this step's own
 * human calls, commit the suspension and end the run — parked (resume() continues the tree) or `interrupted` when
 * a child was interrupted.
 */
async function parkForChildren(context: TurnContext, settle: SettleInput, waiting: ChildCallOutcome[], companions: WaitingCompanion[]): Promise<TurnOutcome> {
  const { scope, input } = context;
  const { step, suspension } = settle;
  const interrupted = waiting.some(({ outcome }) => outcome.kind === 'interrupted');
  if (suspension.hitlCalls.length > 0) {
    await ClientToolStep.suspend({ ...scope, step, calls: suspension.hitlCalls, rootSessionId: input.rootSessionId });
  }
  const awaitingChildren: Record<string, SuspendedChildWait> = Object.fromEntries([
    ...waiting.map(({ call }) => [call.toolCallId, { childSessionId: call.childSessionId, toolCallId: call.toolCallId, agentType: call.agentType }]),
    ...companions.map(({ wait }) => [
      wait.call.toolCallId,
      { childSessionId: wait.childSessionId, toolCallId: wait.call.toolCallId, agentType: wait.agentType },
    ]),
  ]);
  const childIds = [
    ...waiting.flatMap(({ outcome }) => (outcome.kind === 'suspended' ? outcome.toolCallIds : [])),
    ...companions.flatMap(({ toolCallIds }) => toolCallIds),
  ];
  const ownIds = suspension.hitlCalls.map(({ call }) => call.toolCallId);
  for (let attempt = 1; ; attempt += 1) {
    const { parked } = await ClientToolStep.park({
      ...scope,
      step,
      messages: orderMessages(settle.head, settle.priorResults),
      toolOutcomes: settle.priorOutcomes,
      suspension,
      force: interrupted,
      awaitingChildren,
      ...(ownIds.length === 0 ? { awaitingOnlyChildren: { toolCallIds: childIds } } : {}),
      ...(input.parent === undefined ? {} : { parent: input.parent }),
    });
    if (parked || attempt >= MAX_PARK_ATTEMPTS) break;
  }
  if (interrupted) return finished('interrupted', 'interrupted', step, { error: 'A sub-agent was interrupted.' });
  const calls = suspendedCallsOf(suspension.hitlCalls);
  return {
    kind: 'parked',
    stepCount: step,
    toolCallIds: [...ownIds, ...childIds],
    calls,
    stepId: suspension.stepId,
    reason: ownIds.length > 0 ? 'client_tool' : 'awaiting_children',
  };
}

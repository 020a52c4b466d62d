import { DBOS } from '@dbos-inc/dbos-sdk';
import { notifyCompanionDone } from '../channels/companion-done.js';
import {
  autoCompanionName,
  companionResult,
  companionTurnRunId,
  decideCompanionTarget,
  DELIVERABLE_REF_STATUSES,
  deliveryText,
  findPersistentAgent,
  type CompanionDoneMessage,
  type CompanionTurnOutcome,
} from '../orchestration/companions.js';
import { persistentChildSessionId } from '../orchestration/ids.js';
import type { PlannedCompanionCall } from '../orchestration/index.js';
import type { CompanionParentLink } from '../orchestration/persistent-session.js';
import type { UserMessage } from '../types/message.js';
import type { SubSessionRef } from '../types/session.js';
import { childView, messageCompanion, outcomeOfRun, previousDelivery, refPatchOf, spawnCompanion, terminateCompanion, type CompanionCaller, type CompanionDelivery } from './companion-children.js';
import { companionStatus, currentTurnOutcome, listCompanions, namedRef, openCallsBelow } from './companion-queries.js';
import { registerAgent, runtimeDependencies } from './runtime-registry.js';
import { describeError, stepEnvironment, type RunScope, type StepEnvironment } from './step-scope.js';
import { chunkKey } from './stream-writers.js';
import { childQueuePlacement } from './queue-check.js';
import { safeErrorOf } from '../errors/index.js';

/**
 * Input of `CompanionStep.prepare`: the parent's scope, its step and the call.
 *
 * @example
 * const input: CompanionStepInput = { ...scope, step: 1, call, rootSessionId: 's1', hitlWarmWindowMs: 60_000 };
 */
export interface CompanionStepInput extends RunScope {
  step: number;
  call: PlannedCompanionCall;
  rootSessionId: string;
  hitlWarmWindowMs: number;
}

/**
 * What a companion call's step decided: answered at once (`result` or `error` for the model), a message sent to a
 * child (the body starts `delivery.start` when set; `result` is set when the parent does not wait), or a wait for
 * a child's turn (`waitForResult`, or a blocking agent's message).
 *
 * @example
 * if (prepared.kind === 'sent' && prepared.delivery.start) await startPersistentWorkflow(prepared.delivery.start);
 */
export type CompanionPreparation =
  | { kind: 'answered'; result?: unknown; error?: string }
  | { kind: 'sent'; name: string; childSessionId: string; agentType: string; turnRunId: string; delivery: CompanionDelivery; result?: unknown; timeoutMs?: number }
  | { kind: 'wait'; name: string; childSessionId: string; agentType: string; turnRunId?: string; timeoutMs?: number };

/** Input of `CompanionStep.outcome`. */
export interface CompanionOutcomeInput extends RunScope {
  step: number;
  call: PlannedCompanionCall;
  name: string;
  childSessionId: string;
  /** The child's turn to wait for; absent: its current turn (`waitForResult`), ended once its ref is no longer `running`. */
  turnRunId?: string;
  /** The wait's deadline passed: answer with the current status. */
  timedOut: boolean;
  /** Root of the session tree (its ownership map names the child's open human calls). */
  rootSessionId: string;
}

/**
 * What `CompanionStep.outcome` read: the turn's outcome and, once it ended, the call's result (tool_end written);
 * for a turn parked waiting for a human, no result but the tree's open calls (`waitingCallIds`): the parent's
 * step parks `suspended_awaiting_children` for it.
 */
export interface CompanionOutcomeRead {
  outcome: CompanionTurnOutcome;
  result?: unknown;
  waitingCallIds?: string[];
}

/** Input of `CompanionStep.reportTurn` (the child's workflow, around each turn). */
export interface CompanionReportInput {
  childSessionId: string;
  parent: CompanionParentLink;
  runId: string;
  phase: 'started' | 'ended';
}

/**
 * Durable steps of companion (persistent sub-agent) calls. `prepare` does a call's store work — spawn or re-spawn
 * the child, route a message into its inbox or a continuation, list, status, terminate — idempotently (a re-run
 * finds what it did by the workflow id and run id it gave the child); `outcome` reads a child's ended turn;
 * `reportTurn` (child side) updates the parent's ref and wakes the parent's run; `deliver` hands undelivered
 * outcomes to the parent's next turn exactly once.
 *
 * @example
 * const prepared = await CompanionStep.prepare({ ...scope, step, call, rootSessionId, hitlWarmWindowMs });
 */
export class CompanionStep {
  @DBOS.step({ name: 'CompanionStep.prepare' })
  static async prepare(input: CompanionStepInput): Promise<CompanionPreparation> {
    const environment = await stepEnvironment(input, input.step);
    const { call } = input;
    await environment.emitter.emit({ type: 'tool_start', toolCallId: call.toolCallId, toolName: call.toolName, arguments: call.input }, { key: chunkKey(input, 'tool_start', call.toolCallId) });
    let prepared: CompanionPreparation;
    try {
      prepared = await prepareCall(environment, input);
    } catch (error) {
      environment.dependencies.logger.error('companion.call_failed', { sessionId: input.sessionId, runId: input.runId, action: call.action });
      prepared = { kind: 'answered', error: `The companion call failed: ${describeError(error)}` };
    }
    if (prepared.kind === 'answered') await emitEnd(environment, input, prepared.result, prepared.error);
    if (prepared.kind === 'sent' && prepared.result !== undefined) await emitEnd(environment, input, prepared.result);
    await environment.emitter.flush();
    return prepared;
  }

  /**
   * The child's turn `turnRunId`: its outcome when it ended (or the deadline passed), marked delivered; a turn parked
   * for a human: its open calls (no result: the parent waits, parked); else `running`.
   */
  @DBOS.step({ name: 'CompanionStep.outcome' })
  static async outcome(input: CompanionOutcomeInput): Promise<CompanionOutcomeRead> {
    const environment = await stepEnvironment(input, input.step);
    const { stateStore } = environment.dependencies;
    const outcome =
      input.turnRunId === undefined ? await currentTurnOutcome(stateStore, input.sessionId, input.childSessionId) : outcomeOfRun(await stateStore.getRun(input.childSessionId, input.turnRunId));
    // An interrupted parent stops waiting (its next step ends the run); the cascade normally ends the child first.
    const interrupted = outcome.kind === 'running' && !input.timedOut && (await stateStore.isInterruptRequested(input.sessionId));
    if (outcome.kind === 'running' && !input.timedOut && !interrupted) return { outcome };
    if (outcome.kind === 'waiting_for_human') return { outcome, waitingCallIds: await openCallsBelow(stateStore, input.rootSessionId, input.childSessionId) };
    const result = { ...companionResult(input.name, outcome), ...(outcome.kind !== 'running' ? {} : interrupted ? { waitInterrupted: true } : { timedOut: true }) };
    if (outcome.kind !== 'running') await markDelivered(environment, input.sessionId, input.childSessionId);
    await emitEnd(environment, input, result, outcome.kind === 'failed' ? `Companion ${input.name} failed: ${outcome.error}` : undefined);
    await environment.emitter.flush();
    return { outcome, result };
  }

  @DBOS.step({ name: 'CompanionStep.reportTurn' })
  static async reportTurn(input: CompanionReportInput): Promise<void> {
    const { stateStore, logger } = await runtimeDependencies();
    const refs = await stateStore.getSubSessionRefs(input.parent.sessionId);
    if (!refs.some((ref) => ref.subSessionId === input.childSessionId)) return;
    if (input.phase === 'started') {
      await stateStore.updateSubSessionRef(input.parent.sessionId, input.childSessionId, { status: 'running', completionDelivered: false });
      return;
    }
    const run = await stateStore.getRun(input.childSessionId, input.runId);
    if (run === null) return;
    await stateStore.updateSubSessionRef(input.parent.sessionId, input.childSessionId, refPatchOf(run));
    // Wake the parent's current run if it waits for this child (the message is keyed: a re-run sends it once).
    const parentRun = await stateStore.getCurrentRun(input.parent.sessionId);
    if (parentRun?.workflowId !== undefined && parentRun.status === 'running') {
      const message: CompanionDoneMessage = { kind: 'companion_done', childSessionId: input.childSessionId, runId: input.runId };
      try {
        await notifyCompanionDone(parentRun.workflowId, message);
      } catch {
        // The parent re-reads the child's run on its own within a minute; the ref above is already written.
        logger.warn('companion.wake_failed', { sessionId: input.parent.sessionId, childSessionId: input.childSessionId });
      }
    }
  }

  /**
   * Before a parent turn's first model call: every companion turn that ended without its outcome reaching the parent
   * becomes one user message (id from the child's run, so a re-run or a later turn appends it once), then is marked
   * delivered. Returns how many were delivered.
   */
  @DBOS.step({ name: 'CompanionStep.deliver' })
  static async deliver(scope: RunScope): Promise<number> {
    const { stateStore } = await runtimeDependencies();
    const refs = (await stateStore.getSubSessionRefs(scope.sessionId)).filter(
      (ref) => ref.mode === 'persistent' && ref.completionDelivered !== true && DELIVERABLE_REF_STATUSES.includes(ref.status),
    );
    const messages: UserMessage[] = [];
    const delivered: string[] = [];
    for (const ref of refs) {
      const run = await stateStore.getCurrentRun(ref.subSessionId);
      const outcome: CompanionTurnOutcome = run === null ? { kind: 'terminated' } : outcomeOfRun(run);
      // A newer turn runs already (its own end will be delivered).
      if (outcome.kind === 'running') continue;
      const name = ref.name ?? ref.subSessionId;
      messages.push({ id: `companion:${ref.subSessionId}:${run?.runId ?? 'none'}`, role: 'user', content: deliveryText(name, ref.agentType, outcome), createdAt: Date.now() });
      delivered.push(ref.subSessionId);
    }
    if (messages.length > 0) await stateStore.appendMessages(scope.sessionId, messages);
    for (const childSessionId of delivered) await stateStore.updateSubSessionRef(scope.sessionId, childSessionId, { completionDelivered: true });
    return messages.length;
  }
}

async function prepareCall(environment: StepEnvironment, input: CompanionStepInput): Promise<CompanionPreparation> {
  const { stateStore } = environment.dependencies;
  const { call } = input;
  const args = call.input as { agentType?: string; name?: string; message?: string; reason?: string; timeoutMs?: number };
  const caller: CompanionCaller = {
    parentSessionId: input.sessionId,
    rootSessionId: input.rootSessionId,
    toolCallId: call.toolCallId,
    runId: companionTurnRunId(input.runId, call.toolCallId),
    hitlWarmWindowMs: input.hitlWarmWindowMs,
  };
  const refs = await stateStore.getSubSessionRefs(input.sessionId);
  switch (call.action) {
    case 'listChildren':
      return { kind: 'answered', result: listCompanions(refs) };
    case 'getChildStatus': {
      const ref = namedRef(refs, args.name);
      if (ref === undefined) return unknownChild(args.name);
      const status = await companionStatus(stateStore, ref);
      if (DELIVERABLE_REF_STATUSES.includes(ref.status)) await markDelivered(environment, input.sessionId, ref.subSessionId);
      return { kind: 'answered', result: status };
    }
    case 'terminateChild': {
      const ref = namedRef(refs, args.name);
      if (ref === undefined) return unknownChild(args.name);
      await terminateCompanion(stateStore, input.sessionId, ref.subSessionId, args.reason);
      return { kind: 'answered', result: { name: ref.name, status: 'terminated' } };
    }
    case 'waitForResult': {
      const ref = namedRef(refs, args.name);
      if (ref === undefined) return unknownChild(args.name);
      return { kind: 'wait', name: ref.name ?? ref.subSessionId, childSessionId: ref.subSessionId, agentType: ref.agentType, ...(args.timeoutMs === undefined ? {} : { timeoutMs: args.timeoutMs }) };
    }
    case 'spawnAgent':
    case 'sendMessage':
      return messageCall(environment, input, caller, refs, args);
  }
}

async function messageCall(
  environment: StepEnvironment,
  input: CompanionStepInput,
  caller: CompanionCaller,
  refs: readonly SubSessionRef[],
  args: { agentType?: string; name?: string; message?: string },
): Promise<CompanionPreparation> {
  const { stateStore } = environment.dependencies;
  const action = input.call.action === 'spawnAgent' ? 'spawnAgent' : 'sendMessage';
  const persistentAgents = environment.agent.persistentAgents;
  const spawnEntry = action === 'spawnAgent' ? findPersistentAgent(persistentAgents, args.agentType ?? '') : undefined;
  if (action === 'spawnAgent' && spawnEntry === undefined) return { kind: 'answered', error: 'Unknown persistent agent type.' };
  // A re-run of this step finds the child it named before (auto-names depend on the refs it added).
  const named = args.name ?? refs.find((ref) => ref.mode === 'persistent' && ref.parentToolCallId === caller.toolCallId)?.name;
  const name = named ?? autoCompanionName(spawnEntry?.name ?? 'agent', refs.filter((ref) => ref.mode === 'persistent'));
  const childSessionId = persistentChildSessionId(input.sessionId, name);
  const state = await stateStore.loadState(childSessionId);
  const ref = refs.find((candidate) => candidate.subSessionId === childSessionId);
  const entry = spawnEntry ?? persistentAgents.find((candidate) => candidate.agentType === state?.agentType);
  const sent = (delivery: CompanionDelivery): CompanionPreparation => ({
    kind: 'sent',
    name,
    childSessionId,
    agentType: entry?.agentType ?? state?.agentType ?? 'unknown',
    turnRunId: caller.runId,
    delivery,
    ...(entry?.mode === 'blocking' ? {} : { result: { name, sessionId: childSessionId, status: 'running' } }),
  });
  const again = await previousDelivery(stateStore, state, caller);
  if (again !== undefined) return sent(again);
  const decision = decideCompanionTarget(action, spawnEntry?.agentType, await childView(stateStore, state, ref));
  const text = args.message ?? '';
  switch (decision) {
    case 'spawn':
    case 'respawn': {
      if (entry === undefined) return { kind: 'answered', error: 'The child cannot be re-spawned: its agent type is not among this agent\'s persistent agents.' };
      registerAgent(entry.agent);
      const queue = await childQueuePlacement(entry.agent.queue, undefined).catch((error: unknown) => error as Error);
      if (queue instanceof Error) return { kind: 'answered', error: `Companion ${name} cannot start: ${safeErrorOf(queue, { source: 'internal' }).message}` };
      return sent(await spawnCompanion(environment.dependencies, caller, entry, name, text, decision === 'respawn', queue));
    }
    case 'message':
      return sent(await messageCompanion(stateStore, caller, childSessionId, text));
    case 'unknown_child':
      return unknownChild(name);
    case 'refuse_running':
      return { kind: 'answered', error: `Companion ${name} is running; use companion__sendMessage to message it.` };
    case 'refuse_waiting_human':
      return { kind: 'answered', error: `Companion ${name} waits for a human to answer a tool call; try again after it is answered.` };
    case 'refuse_other_type':
      return { kind: 'answered', error: `The name ${name} belongs to a companion of another agent type.` };
  }
}

function unknownChild(name: string | undefined): CompanionPreparation {
  return { kind: 'answered', error: `No companion named ${name ?? '(none)'}.` };
}

async function markDelivered(environment: StepEnvironment, parentSessionId: string, childSessionId: string): Promise<void> {
  await environment.dependencies.stateStore.updateSubSessionRef(parentSessionId, childSessionId, { completionDelivered: true });
}

async function emitEnd(environment: StepEnvironment, input: RunScope & { step: number; call: PlannedCompanionCall }, result: unknown, error?: string): Promise<void> {
  const { call } = input;
  await environment.emitter.emit(
    { type: 'tool_end', toolCallId: call.toolCallId, toolName: call.toolName, ...(error === undefined ? { result } : { error }) },
    { key: chunkKey(input, 'tool_end', call.toolCallId) },
  );
}

import { DBOS } from '@dbos-inc/dbos-sdk';
import { notifyCompanionDone } from '../channels/companion-done.js';
import { companionResult, DELIVERABLE_REF_STATUSES, deliveryText, type CompanionDoneMessage, type CompanionTurnOutcome } from '../orchestration/companions.js';
import type { PlannedCompanionCall } from '../orchestration/index.js';
import type { CompanionParentLink } from '../orchestration/persistent-session.js';
import type { UserMessage } from '../types/message.js';
import { outcomeOfRun, refPatchOf } from './companion-children.js';
import { currentTurnOutcome, openCallsBelow } from './companion-queries.js';
import { runtimeDependencies } from './runtime-registry.js';
import { describeError, stepEnvironment, type RunScope, type StepEnvironment } from './step-scope.js';
import { chunkKey } from './stream-writers.js';
import { toolSpan } from '../telemetry/agent-spans.js';
import { markDelivered, prepareCompanionCall, type CompanionPreparation, type CompanionStepInput } from './companion-prepare.js';

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
  /** When the call began (its `execute_tool` span's start); absent: recorded before, the span starts now. */
  callStartedAt?: number;
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
    const startedAt = Date.now();
    await environment.emitter.emit(
      { type: 'tool_start', toolCallId: call.toolCallId, toolName: call.toolName, arguments: call.input },
      { key: chunkKey(input, 'tool_start', call.toolCallId) },
    );
    let prepared: CompanionPreparation;
    try {
      prepared = await prepareCompanionCall(environment, input);
    } catch (error) {
      environment.dependencies.logger.error('companion.call_failed', { sessionId: input.sessionId, runId: input.runId, action: call.action });
      prepared = { kind: 'answered', error: `The companion call failed: ${describeError(error)}` };
    }
    // The call ends here when it is answered at once or sends without waiting; one that goes on (a wait for the
    // child's turn) carries its start to the step that ends it.
    const ended = { ...input, callStartedAt: startedAt };
    let outcome: CompanionPreparation = prepared;
    if (prepared.kind === 'answered') await emitEnd(environment, ended, prepared.result, prepared.error);
    else if (prepared.kind === 'sent' && prepared.result !== undefined) await emitEnd(environment, ended, prepared.result);
    else outcome = { ...prepared, callStartedAt: startedAt };
    await environment.emitter.flush();
    return outcome;
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
      input.turnRunId === undefined
        ? await currentTurnOutcome(stateStore, input.sessionId, input.childSessionId)
        : outcomeOfRun(await stateStore.getRun(input.childSessionId, input.turnRunId));
    // An interrupted parent stops waiting (its next step ends the run); the cascade normally ends the child first.
    const interrupted = outcome.kind === 'running' && !input.timedOut && (await stateStore.isInterruptRequested(input.sessionId));
    if (outcome.kind === 'running' && !input.timedOut && !interrupted) return { outcome };
    if (outcome.kind === 'waiting_for_human') return { outcome, waitingCallIds: await openCallsBelow(stateStore, input.rootSessionId, input.childSessionId) };
    const result = {
      ...companionResult(input.name, outcome),
      ...(outcome.kind !== 'running' ? {} : interrupted ? { waitInterrupted: true } : { timedOut: true }),
    };
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
      messages.push({
        id: `companion:${ref.subSessionId}:${run?.runId ?? 'none'}`,
        role: 'user',
        content: deliveryText(name, ref.agentType, outcome),
        createdAt: Date.now(),
      });
      delivered.push(ref.subSessionId);
    }
    if (messages.length > 0) await stateStore.appendMessages(scope.sessionId, messages);
    for (const childSessionId of delivered) await stateStore.updateSubSessionRef(scope.sessionId, childSessionId, { completionDelivered: true });
    return messages.length;
  }
}

/**
 * The call ended: its `tool_end` chunk, and its `execute_tool <tool>` span (executor `companion`, from the call's start
 * to now; for a blocking call, until the child's turn answered, maybe across a park). A `@DBOS.step` body: the span
 * goes out at once (a replayed step emits nothing; a step killed after its span and before its record: at-least-once).
 */
async function emitEnd(
  environment: StepEnvironment,
  input: RunScope & { step: number; call: PlannedCompanionCall; callStartedAt?: number },
  result: unknown,
  error?: string,
): Promise<void> {
  const { call } = input;
  await environment.emitter.emit(
    { type: 'tool_end', toolCallId: call.toolCallId, toolName: call.toolName, ...(error === undefined ? { result } : { error }) },
    { key: chunkKey(input, 'tool_end', call.toolCallId) },
  );
  const endedAt = Date.now();
  toolSpan(input, {
    step: input.step,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    startedAt: input.callStartedAt ?? endedAt,
    endedAt,
    outcome: error === undefined ? 'success' : 'error',
    executor: 'companion',
    attempt: 1,
    arguments: call.input,
    ...(error === undefined ? { result } : { error: { type: 'companion_call_failed' } }),
  });
}

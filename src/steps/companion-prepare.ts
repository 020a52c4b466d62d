import { autoCompanionName, companionTurnRunId, decideCompanionTarget, DELIVERABLE_REF_STATUSES, findPersistentAgent } from '../orchestration/companions.js';
import { persistentChildSessionId } from '../orchestration/ids.js';
import type { PlannedCompanionCall } from '../orchestration/index.js';
import type { SubSessionRef } from '../types/session.js';
import {
  childView,
  messageCompanion,
  previousDelivery,
  spawnCompanion,
  terminateCompanion,
  type CompanionCaller,
  type CompanionDelivery,
} from './companion-children.js';
import { companionStatus, listCompanions, namedRef } from './companion-queries.js';
import { registerAgent } from './runtime-registry.js';
import type { RunScope, StepEnvironment } from './step-scope.js';
import { childQueuePlacement } from './queue-check.js';
import { safeErrorOf } from '../errors/index.js';
import { toolCallTrace } from '../telemetry/span-emission.js';

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
  | {
      kind: 'sent';
      name: string;
      childSessionId: string;
      agentType: string;
      turnRunId: string;
      delivery: CompanionDelivery;
      result?: unknown;
      timeoutMs?: number;
      /** When the call began (a call that goes on: its `execute_tool` span's start). */
      callStartedAt?: number;
    }
  | { kind: 'wait'; name: string; childSessionId: string; agentType: string; turnRunId?: string; timeoutMs?: number; callStartedAt?: number };

/**
 * What a companion call decides and does (inside `CompanionStep.prepare`): the listing, status and termination
 * answered at once, a wait for a child's turn, or a message sent to a child (spawning it when asked).
 *
 * @example
 * const prepared = await prepareCompanionCall(environment, input);
 */
export async function prepareCompanionCall(environment: StepEnvironment, input: CompanionStepInput): Promise<CompanionPreparation> {
  const { stateStore } = environment.dependencies;
  const { call } = input;
  const args = call.input as { agentType?: string; name?: string; message?: string; reason?: string; timeoutMs?: number };
  const caller: CompanionCaller = {
    parentSessionId: input.sessionId,
    rootSessionId: input.rootSessionId,
    toolCallId: call.toolCallId,
    runId: companionTurnRunId(input.runId, call.toolCallId),
    hitlWarmWindowMs: input.hitlWarmWindowMs,
    trace: toolCallTrace(input, call.toolCallId),
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
      return {
        kind: 'wait',
        name: ref.name ?? ref.subSessionId,
        childSessionId: ref.subSessionId,
        agentType: ref.agentType,
        ...(args.timeoutMs === undefined ? {} : { timeoutMs: args.timeoutMs }),
      };
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
  const name =
    named ??
    autoCompanionName(
      spawnEntry?.name ?? 'agent',
      refs.filter((ref) => ref.mode === 'persistent'),
    );
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
      if (entry === undefined)
        return { kind: 'answered', error: "The child cannot be re-spawned: its agent type is not among this agent's persistent agents." };
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

/**
 * Mark a child's ended turn as delivered to its parent (the parent saw its outcome).
 *
 * @example
 * await markDelivered(environment, parentSessionId, childSessionId);
 */
export async function markDelivered(environment: StepEnvironment, parentSessionId: string, childSessionId: string): Promise<void> {
  await environment.dependencies.stateStore.updateSubSessionRef(parentSessionId, childSessionId, { completionDelivered: true });
}

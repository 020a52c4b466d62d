import { DBOS } from '@dbos-inc/dbos-sdk';
import type { QueuePlacement } from '../orchestration/queue-placement.js';
import type { ResolvedPersistentAgent } from '../agent/index.js';
import { sendInboxTurn } from '../channels/persistent-inbox.js';
import { InternalError, SessionAlreadyExistsError } from '../errors/index.js';
import {
  companionContinueWorkflowId,
  companionRefStatus,
  companionSpawnWorkflowId,
  turnOutcomeOf,
  type CompanionChildView,
  type CompanionTurnOutcome,
} from '../orchestration/companions.js';
import { latestCompanionTurnPatch } from '../orchestration/companion-turn.js';
import { persistentChildSessionId } from '../orchestration/ids.js';
import { initializeAgentState } from '../orchestration/initialize-agent-state.js';
import {
  persistentMarkerPatch,
  readPersistentMarker,
  withPersistentMarker,
  type PersistentMarker,
  type PersistentTurnMessage,
  type PersistentWorkflowInput,
} from '../orchestration/persistent-session.js';
import { isParkedRunStatus } from '../orchestration/session-transitions.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { RunRecord, SessionState, SubSessionRef } from '../types/session.js';
import { routePersistentMessage, type RouteTransport } from './persistent-route.js';
import type { RuntimeDependencies } from './runtime-registry.js';
import { journalStamp } from '../journal/format.js';

/** Where a companion call's message went: the workflow that runs its turn, and a start the caller's body owes. */
export interface CompanionDelivery {
  workflowId: string;
  /** Start this workflow from the calling workflow body (deterministic id: a replayed start is de-duplicated). */
  start?: PersistentWorkflowInput;
  /** After `start`, send the message into its inbox from the body (the live generation's start was lost). */
  sendAfterStart?: PersistentTurnMessage;
}

/** The parent side of a companion call: who calls, and for which call. */
export interface CompanionCaller {
  parentSessionId: string;
  rootSessionId: string;
  toolCallId: string;
  /** The companion turn's run id (`companionTurnRunId(parentRunId, toolCallId)`). */
  runId: string;
  hitlWarmWindowMs: number;
  /** The caller's trace and the call's `execute_tool` span: the companion turn's parent. */
  trace?: { traceId: string; parentSpanId: string };
}

/** Inside a step, a persistent session's inbox is written directly; a workflow start is left to the caller's body. */
const STEP_TRANSPORT: RouteTransport = {
  send: sendInboxTurn,
  start: () => Promise.resolve(false),
};

/** The named child's session as `decideCompanionTarget` sees it. */
export async function childView(stateStore: SessionStateStore, state: SessionState | null, ref: SubSessionRef | undefined): Promise<CompanionChildView | null> {
  if (state === null) return null;
  const run = await stateStore.getCurrentRun(state.sessionId);
  return {
    agentType: state.agentType,
    status: state.status,
    parked: state.status === 'active' && state.suspendedStepId !== undefined && isParkedRunStatus(run?.status),
    ...(state.failureReason === undefined ? {} : { failureReason: state.failureReason }),
    ...(ref?.status === 'terminated' ? { terminated: true } : {}),
  };
}

/**
 * This call's message already reached the child (a re-run of the step after a crash): the delivery it made. Found by
 * the workflow id this call gave the child (`metadata.dbosWorkflowId`), the turn's run record, or the queued message.
 */
export async function previousDelivery(
  stateStore: SessionStateStore,
  state: SessionState | null,
  caller: CompanionCaller,
): Promise<CompanionDelivery | undefined> {
  if (state === null) return undefined;
  const marker = readPersistentMarker(state.metadata);
  if (marker === undefined) return undefined;
  const ours = [companionSpawnWorkflowId(state.sessionId, caller.toolCallId), companionContinueWorkflowId(state.sessionId, caller.toolCallId)];
  if (ours.includes(marker.workflowId)) return { workflowId: marker.workflowId, ...(marker.start === undefined ? {} : { start: marker.start }) };
  const run = await stateStore.getRun(state.sessionId, caller.runId);
  if (run !== null) return { workflowId: run.workflowId ?? marker.workflowId };
  if ((marker.deferred ?? []).some((message) => message.runId === caller.runId)) return { workflowId: marker.workflowId };
  return undefined;
}

/**
 * Create the companion session `${parent}-agent-${name}` (persistent mode, its own stream, parent and root recorded)
 * with the message as its first turn, and the parent's `SubSessionRef` (mode `persistent`, `name`). A re-spawn
 * deletes the failed or terminated session first and resets the ref. Returns the workflow the body starts.
 */
export async function spawnCompanion(
  dependencies: RuntimeDependencies,
  caller: CompanionCaller,
  entry: ResolvedPersistentAgent,
  name: string,
  text: string,
  respawn: boolean,
  queue?: QueuePlacement,
): Promise<CompanionDelivery> {
  const { stateStore } = dependencies;
  const childSessionId = persistentChildSessionId(caller.parentSessionId, name);
  const initial = initializeAgentState(entry.agent, text, { runId: caller.runId });
  const message: PersistentTurnMessage = { kind: 'turn', runId: caller.runId, userMessage: initial.message, ...traceOf(caller) };
  const start: PersistentWorkflowInput = {
    sessionId: childSessionId,
    agentType: entry.agentType,
    streamId: childSessionId,
    workflowId: companionSpawnWorkflowId(childSessionId, caller.toolCallId),
    generation: 0,
    rootSessionId: caller.rootSessionId,
    hitlWarmWindowMs: caller.hitlWarmWindowMs,
    idleWarmWindowMs: dependencies.persistentWindows.idleWarmWindowMs,
    idleTimeoutMs: dependencies.persistentWindows.idleTimeoutMs,
    initialMessages: [message],
    parent: { sessionId: caller.parentSessionId, name },
    journal: journalStamp(),
    ...(queue === undefined ? {} : { queue }),
  };
  const marker: PersistentMarker = { workflowId: start.workflowId, phase: 'live', generation: 0, start };
  if (respawn) await stateStore.deleteSession(childSessionId);
  try {
    await stateStore.createSession(childSessionId, {
      agentType: entry.agentType,
      customState: initial.customState,
      status: 'active',
      mode: 'persistent',
      streamId: childSessionId,
      parentSessionId: caller.parentSessionId,
      rootSessionId: caller.rootSessionId,
      metadata: { ...withPersistentMarker(undefined, marker), ...latestCompanionTurnPatch(caller.runId) },
    });
  } catch (error) {
    if (!SessionAlreadyExistsError.isInstance(error)) throw error;
  }
  const ref: SubSessionRef = {
    subSessionId: childSessionId,
    agentType: entry.agentType,
    parentToolCallId: caller.toolCallId,
    mode: 'persistent',
    name,
    status: 'running',
    completionDelivered: false,
    startedAt: Date.now(),
  };
  await stateStore.addSubSessionRefs(caller.parentSessionId, [ref]);
  if (respawn)
    await stateStore.updateSubSessionRef(caller.parentSessionId, childSessionId, {
      status: 'running',
      parentToolCallId: caller.toolCallId,
      completionDelivered: false,
    });
  return { workflowId: start.workflowId, start };
}

/**
 * The message as the child's next turn on its preserved session: into the inbox of its live workflow, or — when it
 * parked or ended — a continuation generation `${childSessionId}-continue-${toolCallId}` carrying it (one winner
 * among concurrent senders; the others queue into the winner's inbox). The turn heals a dangling `__finish__`,
 * appends the message once and starts at step 0.
 */
export async function messageCompanion(
  stateStore: SessionStateStore,
  caller: CompanionCaller,
  childSessionId: string,
  text: string,
): Promise<CompanionDelivery> {
  const userMessage = { id: `${caller.runId}:0:0`, role: 'user' as const, content: text };
  const message: PersistentTurnMessage = { kind: 'turn', runId: caller.runId, userMessage, ...traceOf(caller) };
  // Before routing: a live child may run and end the turn before this step returns (its end then wins), and a turn
  // still running may end after it (the newest turn, recorded on the child, keeps `waitForResult` waiting for this one).
  await Promise.all([
    stateStore.updateSubSessionRef(caller.parentSessionId, childSessionId, { status: 'running', completionDelivered: false }),
    stateStore.patchMetadata(childSessionId, latestCompanionTurnPatch(caller.runId)),
  ]);
  const routed = await routePersistentMessage(stateStore, childSessionId, message, {
    transport: STEP_TRANSPORT,
    restartInput: (state, marker, carried) => {
      if (marker?.start === undefined) throw new InternalError('The companion session has no start record, so it cannot be restarted; spawn a new companion.');
      const workflowId = companionContinueWorkflowId(state.sessionId, caller.toolCallId);
      return { ...marker.start, workflowId, generation: marker.generation + 1, initialMessages: carried };
    },
  });
  return {
    workflowId: routed.workflowId,
    ...(routed.start === undefined ? {} : { start: routed.start }),
    ...(routed.sendAfterStart === true ? { sendAfterStart: message } : {}),
  };
}

/**
 * Terminate a companion: its workflow cancelled, its marker `closed`/`aborted`, a running or parked turn recorded
 * aborted, the session `failed` (`aborted`), the parent's ref `terminated`.
 */
export async function terminateCompanion(
  stateStore: SessionStateStore,
  parentSessionId: string,
  childSessionId: string,
  reason: string | undefined,
): Promise<void> {
  await closeCompanionSession(
    stateStore,
    parentSessionId,
    childSessionId,
    reason === undefined ? 'Terminated by the parent' : `Terminated by the parent: ${reason}`,
  );
}

/**
 * End a companion session for good (terminate, or the abort cascade of its parent): marker `closed`/`aborted` first
 * (a turn that opens afterwards sees it and records itself aborted), its workflow cancelled, a running or parked
 * turn recorded aborted, the session `failed` (`aborted`), the parent's ref `terminated`. Idempotent.
 *
 * @example
 * await closeCompanionSession(stateStore, 'root', 'root-agent-w', 'Aborted');
 */
export async function closeCompanionSession(stateStore: SessionStateStore, parentSessionId: string, childSessionId: string, error: string): Promise<void> {
  const state = await stateStore.loadState(childSessionId);
  const marker = readPersistentMarker(state?.metadata);
  if (marker !== undefined) {
    await stateStore.patchMetadata(childSessionId, persistentMarkerPatch({ ...marker, phase: 'closed', endReason: 'aborted', deferred: [] }));
    if (marker.phase !== 'closed') await DBOS.cancelWorkflow(marker.workflowId, { cancelChildren: true });
  }
  const run = await stateStore.getCurrentRun(childSessionId);
  if (run !== null && (run.status === 'running' || isParkedRunStatus(run.status))) {
    await stateStore.updateRunStatus(childSessionId, run.runId, 'aborted', { completionReason: 'aborted', endedAt: Date.now(), error });
  }
  if (state !== null) await stateStore.updateStatus(childSessionId, 'failed', { error, failureReason: 'aborted' });
  await stateStore.updateSubSessionRef(parentSessionId, childSessionId, { status: 'terminated', error });
}

/** The outcome of one recorded companion turn (its run's status, the output kept with the run, its error). */
export function outcomeOfRun(run: RunRecord | null): CompanionTurnOutcome {
  if (run === null) return { kind: 'running' };
  const output = (run.metadata as { output?: unknown } | undefined)?.output;
  return turnOutcomeOf({ status: run.status, ...(run.error === undefined ? {} : { error: run.error }), ...(output === undefined ? {} : { output }) });
}

/**
 * The ref fields a companion turn's end writes. `completionDelivered` is left alone: the turn's start reset it, and a
 * parent that already read the ended run may have set it.
 */
export function refPatchOf(run: RunRecord): Partial<SubSessionRef> {
  const outcome = outcomeOfRun(run);
  return {
    status: companionRefStatus(run.status),
    ...(outcome.kind === 'completed' ? { output: outcome.output } : {}),
    ...(outcome.kind === 'failed' ? { error: outcome.error } : {}),
  };
}

function traceOf(caller: CompanionCaller): Pick<PersistentTurnMessage, 'trace'> {
  return caller.trace === undefined ? {} : { trace: caller.trace };
}

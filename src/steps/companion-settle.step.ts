import { DBOS } from '@dbos-inc/dbos-sdk';
import { InternalError, StaleStateError } from '../errors/index.js';
import {
  companionResumeWorkflowId,
  companionTurnRunId,
  decideCompanionCascade,
  type CompanionCallWait,
  type CompanionCascadeView,
} from '../orchestration/companions.js';
import { readPersistentMarker, withPersistentMarker, type PersistentMarker, type PersistentTurnMessage } from '../orchestration/persistent-session.js';
import { resumeTurnInput } from '../orchestration/resume-turn.js';
import { isParkedRunStatus } from '../orchestration/session-transitions.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { RunRecord, SessionState } from '../types/session.js';
import type { CompanionDelivery } from './companion-children.js';
import { runtimeDependencies } from './runtime-registry.js';
import type { RunScope } from './step-scope.js';
import { toolCallTrace } from '../telemetry/span-emission.js';

/**
 * Input of `CompanionSettleStep.prepareContinue`: the resumed parent's scope, the step it settles and one awaited
 * companion call.
 *
 * @example
 * const input: CompanionContinueInput = { ...scope, step: 0, wait };
 */
export interface CompanionContinueInput extends RunScope {
  step: number;
  wait: CompanionCallWait;
}

/**
 * What the resumed parent waits for: the companion turn `turnRunId` (absent: the companion's current turn), after
 * starting `delivery.start` from its body when set (the generation that resumes the companion's parked turn).
 *
 * @example
 * if (prepared.delivery?.start) await startPersistentWorkflow(prepared.delivery.start);
 */
export interface CompanionContinuation {
  turnRunId?: string;
  delivery?: CompanionDelivery;
}

/** Longest wait for a parked companion's workflow to finish closing (it closes right after the turn parked). */
const CLOSE_WAIT_MS = 20_000;
const CLOSE_POLL_MS = 10;

/**
 * The parent's side of the companion cascade: a resumed parent's parked step continues each companion it waited
 * for (the pure table `decideCompanionCascade`). A parked companion turn is resumed on the companion's own session
 * by one version-checked write that both takes the session (clears its suspended step, as `resume()` does) and
 * records the next generation (`${childSessionId}-resume-${turnRunId}`, carrying the resume and any messages
 * deferred by the park), so exactly one resumer wins and a re-run of this step finds its own generation.
 *
 * @example
 * const continuation = await CompanionSettleStep.prepareContinue({ ...scope, step, wait });
 */
export class CompanionSettleStep {
  @DBOS.step({ name: 'CompanionSettleStep.prepareContinue' })
  static async prepareContinue(input: CompanionContinueInput): Promise<CompanionContinuation> {
    const { stateStore } = await runtimeDependencies();
    const childId = input.wait.childSessionId;
    const ourRunId = companionTurnRunId(input.runId, input.wait.call.toolCallId);
    const ourWorkflowId = companionResumeWorkflowId(childId, ourRunId);
    for (;;) {
      const state = await waitUntilClosed(stateStore, childId);
      const run = await stateStore.getCurrentRun(childId);
      const marker = readPersistentMarker(state?.metadata);
      const ref = (await stateStore.getSubSessionRefs(input.sessionId)).find((candidate) => candidate.subSessionId === childId);
      const view: CompanionCascadeView = {
        exists: state !== null,
        terminated: ref?.status === 'terminated' || state?.failureReason === 'aborted',
        parked:
          state !== null && state.status === 'active' && state.suspendedStepId !== undefined && isParkedRunStatus(run?.status) && marker?.phase === 'closed',
        runStatus: run?.status ?? null,
        ourTurn: marker?.workflowId === ourWorkflowId || (await stateStore.getRun(childId, ourRunId)) !== null,
      };
      switch (decideCompanionCascade(view)) {
        case 'wait_ours':
          return {
            turnRunId: ourRunId,
            ...(marker?.workflowId === ourWorkflowId && marker.start !== undefined ? { delivery: { workflowId: ourWorkflowId, start: marker.start } } : {}),
          };
        case 'wait_current':
          return run === null ? {} : { turnRunId: run.runId };
        case 'drain':
          // Its ended turn is read by `CompanionStep.outcome` (a terminated or vanished child: its current outcome).
          return view.terminated || run === null ? {} : { turnRunId: run.runId };
        case 'continue': {
          if (state === null || marker === undefined) return {};
          const delivery = await takeAndResume(stateStore, state, run, marker, ourRunId, ourWorkflowId, callTrace(input));
          if (delivery === undefined) continue; // another writer moved the session: decide again
          return { turnRunId: ourRunId, delivery };
        }
      }
    }
  }
}

/** The companion's session once the workflow whose turn parked has closed (it closes within milliseconds). */
async function waitUntilClosed(stateStore: SessionStateStore, childId: string): Promise<SessionState | null> {
  const deadline = Date.now() + CLOSE_WAIT_MS;
  for (;;) {
    const state = await stateStore.loadState(childId);
    const marker = readPersistentMarker(state?.metadata);
    const run = marker === undefined || marker.phase === 'closed' ? null : await stateStore.getCurrentRun(childId);
    // The generation whose turn parked has not closed yet (a later generation, e.g. our own resume, is not waited for).
    const closing = run !== null && isParkedRunStatus(run.status) && run.workflowId === marker?.workflowId;
    if (!closing || Date.now() > deadline) return state;
    await new Promise((resolve) => setTimeout(resolve, CLOSE_POLL_MS));
  }
}

/**
 * One version-checked write: the parked session is taken (suspended step cleared) and its marker points at the
 * generation that runs the resume first, then the messages the park deferred. Undefined when the write lost a race.
 */
async function takeAndResume(
  stateStore: SessionStateStore,
  state: SessionState,
  run: RunRecord | null,
  marker: PersistentMarker,
  runId: string,
  workflowId: string,
  trace: NonNullable<PersistentTurnMessage['trace']>,
): Promise<CompanionDelivery | undefined> {
  if (marker.start === undefined) throw new InternalError('The companion session has no start record, so it cannot be restarted; spawn a new companion.');
  const resumed = resumeTurnInput(state.pendingClientToolCalls ?? {}, run, runId, { mode: 'continue' });
  const message: PersistentTurnMessage = { kind: 'turn', runId, ...resumed, trace };
  const start = { ...marker.start, workflowId, generation: marker.generation + 1, initialMessages: [message, ...(marker.deferred ?? [])] };
  const next: PersistentMarker = { workflowId, phase: 'live', generation: start.generation, start };
  try {
    await stateStore.saveState(
      state.sessionId,
      { suspendedStepId: undefined, metadata: withPersistentMarker(state.metadata, next) },
      { expectedVersion: state.version },
    );
  } catch (error) {
    if (StaleStateError.isInstance(error)) return undefined;
    throw error;
  }
  await stateStore.incrementResumeCount(state.sessionId);
  return { workflowId, start };
}

/** The resumed companion turn's parent: the blocked call's `execute_tool` span, in the caller's trace. */
function callTrace(input: CompanionContinueInput): NonNullable<PersistentTurnMessage['trace']> {
  return toolCallTrace(input, input.wait.call.toolCallId);
}

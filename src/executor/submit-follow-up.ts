import { DBOS } from '@dbos-inc/dbos-sdk';
import type { AnyAgentConfig } from '../agent/index.js';
import type { Logger } from '../hooks/types.js';
import { decideSessionOperation, isParkedRunStatus, sessionViewOf } from '../orchestration/session-transitions.js';
import { companionEntry, resumeParkedCompanions } from './companion-resume.js';
import { peekRegisteredAgent } from '../steps/runtime-registry.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { SessionState } from '../types/session.js';
import { openCallsOf, openCallsOfDescendants } from '../store/open-calls.js';
import { dbosCallContext } from './replay-safe.js';
import { submitToolResult, type SubmitToolResult, type SubmitToolResultResponse } from './submit-tool-result.js';
import type { AgentExecutionHandle } from './types.js';

/** What an accepted submission leads to, and whether nothing is left open. */
export interface SubmissionFollowUp {
  next: 'continues' | 'needs_resume';
  /** Calls of the session (and of its sub-agents) still waiting for an answer. */
  openCalls: number;
  agentType: string | undefined;
  /** The session's run is parked (it needs resume() once its own and its sub-agents' calls are answered). */
  parked: boolean;
}

/**
 * After an accepted submission: does the run continue by itself (it waits warm) or does it need `resume()`
 * (it parked)? Asks the session state machine (`submit` on the root's status and run).
 *
 * @example
 * const { next, openCalls } = await followUpSubmission(stateStore, sessionId);
 */
export async function followUpSubmission(stateStore: SessionStateStore, sessionId: string): Promise<SubmissionFollowUp> {
  const state = await stateStore.loadState(sessionId);
  const run = await stateStore.getCurrentRun(sessionId);
  const decision = decideSessionOperation('submit', sessionViewOf(state, run));
  const own = openCallsOf(state).length;
  const descendants = state === null ? 0 : (await openCallsOfDescendants(stateStore, state)).length;
  return { next: decision.action === 'wake' ? 'continues' : 'needs_resume', openCalls: own + descendants, agentType: state?.agentType, parked: isParkedRunStatus(run?.status) };
}

/**
 * `submitToolResult()` with what happens next (`next`), resuming a parked run on its last answer when `resume`
 * is given (the executor's `autoResumeOnSubmit`). In a user's workflow body the submission is one recorded step
 * (`helix.submitToolResult`: a recovered caller replays its answer, never submits twice) and never auto-resumes.
 *
 * @example
 * const response = await submitAndFollowUp(stateStore, logger, params, undefined);
 */
export async function submitAndFollowUp(
  stateStore: SessionStateStore,
  logger: Logger,
  params: SubmitToolResult,
  resume: ((agent: AnyAgentConfig, sessionId: string) => Promise<AgentExecutionHandle<any>>) | undefined,
): Promise<SubmitToolResultResponse> {
  const context = dbosCallContext();
  const submit = async (): Promise<SubmitToolResultResponse> => {
    const response = await submitToolResult(stateStore, logger, params);
    if (response.status !== 'accepted') return response;
    let followUp = await followUpSubmission(stateStore, response.sessionId);
    if (followUp.next === 'continues' && followUp.openCalls === 0 && (await parksMeanwhile(stateStore, response.sessionId, response.toolCallId))) {
      followUp = await followUpSubmission(stateStore, response.sessionId);
    }
    const agent = followUp.agentType === undefined ? undefined : peekRegisteredAgent(followUp.agentType);
    if (resume !== undefined && context === 'outside') {
      // Parked companions whose calls are now answered continue on their own sessions (the root need not be parked);
      // `resumed` when the answered call was one of theirs.
      const companions = await resumeParkedCompanions(stateStore, logger, response.sessionId, resume);
      const owner = (await stateStore.loadState(response.sessionId))?.clientToolCallOwnership?.[response.toolCallId];
      const resumedOwner = companions.find((handle) => handle.sessionId === owner);
      if (resumedOwner !== undefined && !followUp.parked) return { ...response, next: 'resumed', runId: resumedOwner.runId };
    }
    if (followUp.next === 'continues' || followUp.openCalls > 0 || resume === undefined || agent === undefined || context !== 'outside') {
      return { ...response, next: followUp.next };
    }
    // The last open call of a parked run: resume it (concurrent submits converge on one run through resume()'s CAS).
    const handle = await resume(agent, response.sessionId);
    return { ...response, next: 'resumed', runId: handle.runId };
  };
  return context === 'workflow' ? DBOS.runStep(submit, { name: 'helix.submitToolResult' }) : submit();
}

/** How long a submission waits for a run whose sub-agent parked to park itself (it does at once, in its current step). */
const PARENT_PARK_WAIT_MS = 3_000;

/**
 * The answer came after the sub-agent (ephemeral, or a blocking companion) that owns the call parked (its workflow ended) but before the run above it
 * parked (it does so at once, in its current step): the root still reads `running`, yet nothing will continue the
 * sub-agent but a `resume()` of the root. Wait (briefly) for the root's run to park, so the submission answers
 * `needs_resume` (or resumes it) instead of a `continues` that would leave the session waiting.
 *
 * @example
 * if (await parksMeanwhile(stateStore, 'root-1', 'call-7')) followUp = await followUpSubmission(stateStore, 'root-1');
 */
export async function parksMeanwhile(stateStore: SessionStateStore, rootSessionId: string, toolCallId: string): Promise<boolean> {
  const owner = (await stateStore.loadState(rootSessionId))?.clientToolCallOwnership?.[toolCallId];
  if (owner === undefined || owner === rootSessionId) return false;
  // A non-blocking companion's parent never parks for it (its parked turn is continued on its own session by
  // `resumeParkedCompanions`); a blocking one's parent does, like an ephemeral child's.
  const ownerState = await stateStore.loadState(owner);
  if (ownerState?.mode === 'persistent' && !(await isBlockingCompanion(stateStore, ownerState))) return false;
  if (!isParkedRunStatus((await stateStore.getCurrentRun(owner))?.status)) return false;
  const deadline = Date.now() + PARENT_PARK_WAIT_MS;
  for (;;) {
    const run = await stateStore.getCurrentRun(rootSessionId);
    if (run?.status !== 'running') return isParkedRunStatus(run?.status);
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A companion its parent's agent declares `blocking` (the parent waits for its turns). */
async function isBlockingCompanion(stateStore: SessionStateStore, companion: SessionState): Promise<boolean> {
  if (companion.parentSessionId === undefined) return false;
  const parent = await stateStore.loadState(companion.parentSessionId);
  return parent !== null && companionEntry(parent.agentType, companion.agentType)?.mode === 'blocking';
}

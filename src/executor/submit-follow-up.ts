import { decideSessionOperation, sessionViewOf } from '../orchestration/session-transitions.js';
import type { SessionStateStore } from '../store/state-store.js';
import { openCallsOfDescendants } from './agent-handle.js';

/** What an accepted submission leads to, and whether nothing is left open. */
export interface SubmissionFollowUp {
  next: 'continues' | 'needs_resume';
  /** Calls of the session (and of its sub-agents) still waiting for an answer. */
  openCalls: number;
  agentType: string | undefined;
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
  const own = Object.values(state?.pendingClientToolCalls ?? {}).filter((entry) => entry.submittedAt === undefined).length;
  const descendants = state === null ? 0 : (await openCallsOfDescendants(stateStore, state)).length;
  return { next: decision.action === 'wake' ? 'continues' : 'needs_resume', openCalls: own + descendants, agentType: state?.agentType };
}

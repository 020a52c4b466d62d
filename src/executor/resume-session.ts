import { newRunId } from './run-id.js';
import type { AnyAgentConfig } from '../agent/index.js';
import { resumeTurnInput } from '../orchestration/resume-turn.js';
import { decideSessionOperation, sessionViewOf } from '../orchestration/session-transitions.js';
import { registerAgent } from '../steps/runtime-registry.js';
import { takeForResume } from '../store/take-for-resume.js';
import { awaitInterruptLanding } from './interrupt-landing.js';
import { repairLostStart } from './lost-start.js';
import { isPersistentState } from './persistent-sessions.js';
import type { RetryContext } from './retry-session.js';
import { assertSessionAgent, assertSessionId, refusalError } from './session-refusals.js';
import { rewindSession, rewindTarget } from './session-rewind.js';
import { endedMeanwhile, repairStuckRun } from './stuck-run.js';
import type { AgentExecutionHandle, ResumeOptions } from './types.js';

/**
 * Continue an interrupted, paused or parked session with a new run (a CAS on the session makes concurrent resumes
 * start one run). A run that was interrupted and has not stopped yet is waited for first, so a resume right after
 * `interrupt()` never attaches to the run it interrupted.
 *
 * @throws SessionNotFoundError `SESSION_NOT_FOUND`; NotResumableError `NOT_RESUMABLE` when there is nothing to resume.
 * @example
 * const handle = await resumeSession({ config, launcher, persistent }, agent, 's1', {});
 */
export async function resumeSession(
  context: RetryContext,
  agent: AnyAgentConfig,
  sessionId: string,
  options: ResumeOptions,
): Promise<AgentExecutionHandle<any>> {
  const { config, launcher } = context;
  assertSessionId(sessionId);
  registerAgent(agent);
  const { stateStore, streamManager } = config;
  if (isPersistentState(await stateStore.loadState(sessionId))) return context.persistent.resume(agent, sessionId, options);
  // The run this call found first: a run that continues it was started by a concurrent resume that won.
  let found: string | null | undefined;
  for (;;) {
    const state = await stateStore.loadState(sessionId);
    assertSessionAgent(state, agent.name);
    const run = await stateStore.getCurrentRun(sessionId);
    if (found === undefined) found = run?.runId ?? null;
    else if (run !== null && found !== null && run.previousRunId === found) {
      // That run may even have ended already (a fast one): its handle answers its outcome, never a refusal.
      return launcher.handleFor(agent, sessionId, run);
    }
    if (run?.status === 'running' && (await repairStuckRun(stateStore, streamManager, sessionId))) continue;
    const view = sessionViewOf(state, run);
    const interrupting = run?.status === 'running' && (await stateStore.isInterruptRequested(sessionId));
    const decision = decideSessionOperation('resume', { ...view, interrupting });
    if (decision.action === 'await_interrupt' && run !== null) {
      await awaitInterruptLanding(stateStore, streamManager, sessionId, run.runId);
      continue;
    }
    if (decision.action === 'attach' && run !== null) return launcher.handleFor(agent, sessionId, run);
    if (decision.action === 'await_run') {
      if ((await repairLostStart(stateStore, sessionId)) || (run?.status !== 'running' && (await endedMeanwhile(stateStore, sessionId, run?.runId)))) continue;
      // A concurrent resume won the CAS but has not recorded its run yet: wait for that run, not the ended one.
      return launcher.handleOfRunningSession(agent, sessionId, run?.runId);
    }
    if (decision.action !== 'take_and_start' || state === null) {
      throw refusalError('resume', decision.action === 'refuse' ? decision.reason : 'not_resumable', sessionId, view);
    }
    const parked = state.status === 'active';
    // Validate a rewind target before taking the session: a throw after the swap would leave it `active` with no run.
    const rewindTo = options.mode === 'from_checkpoint' ? await rewindTarget(stateStore, sessionId, options.checkpointId) : undefined;
    if (!(await takeForResume(stateStore, sessionId, state, parked))) {
      const current = await stateStore.getCurrentRun(sessionId);
      if (current !== null && current.runId !== run?.runId) return launcher.handleOfRunningSession(agent, sessionId, run?.runId);
      continue; // another writer (e.g. a submission or a concurrent resume) changed the session: decide again
    }
    await stateStore.incrementResumeCount(sessionId);
    const runId = newRunId();
    if (rewindTo !== undefined) await rewindSession(stateStore, sessionId, rewindTo);
    const turn = resumeTurnInput(state.pendingClientToolCalls ?? {}, run, runId, options);
    await streamManager.reactivateStream(state.streamId ?? sessionId);
    return launcher.startRun(agent, sessionId, runId, turn, options);
  }
}

import { newRunId } from './run-id.js';
import type { AnyAgentConfig } from '../agent/index.js';
import { decideSessionOperation, sessionViewOf } from '../orchestration/session-transitions.js';
import { registerAgent } from '../steps/runtime-registry.js';
import { isPersistentState, type PersistentSessions } from './persistent-sessions.js';
import type { RunLauncher } from './run-launcher.js';
import { assertSessionAgent, assertSessionId, refusalError } from './session-refusals.js';
import { repairStuckRun } from './stuck-run.js';
import type { AgentExecutionHandle, DBOSAgentExecutorConfig, RetryOptions } from './types.js';

/** What a retry needs from its executor. */
export interface RetryContext {
  config: DBOSAgentExecutorConfig;
  launcher: RunLauncher;
  persistent: PersistentSessions;
}

/**
 * Re-run a failed session: a fresh workflow re-runs the loop from the message history (custom state kept). A run
 * left `running` by a vanished workflow is repaired first; a persistent session restarts its receive loop.
 *
 * @throws SessionNotFoundError `SESSION_NOT_FOUND`; NotResumableError `NOT_RESUMABLE` unless the session failed.
 * @example
 * const handle = await retrySession({ config, launcher, persistent }, agent, 's1', {});
 */
export async function retrySession(context: RetryContext, agent: AnyAgentConfig, sessionId: string, options: RetryOptions): Promise<AgentExecutionHandle<any>> {
  const { config, launcher } = context;
  assertSessionId(sessionId);
  registerAgent(agent);
  const { stateStore } = config;
  const state = await stateStore.loadState(sessionId);
  assertSessionAgent(state, agent.name);
  if (state !== null && isPersistentState(state)) return context.persistent.retry(agent, sessionId, options);
  const run = await stateStore.getCurrentRun(sessionId);
  if (run?.status === 'running' && (await repairStuckRun(stateStore, config.streamManager, sessionId))) return retrySession(context, agent, sessionId, options);
  const view = sessionViewOf(state, run);
  const decision = decideSessionOperation('retry', view);
  if (decision.action !== 'restart' || state === null) throw refusalError('retry', decision.action === 'refuse' ? decision.reason : 'not_retryable', sessionId, view);
  const swapped = await stateStore.compareAndSetStatus(sessionId, ['failed'], 'active', { expectedVersion: state.version });
  if (!swapped.ok) {
    // Another writer came first: a concurrent retry (wait for its run), or a late write to the failed session (a
    // cancel recorded twice, a patch): decide again.
    if ((await stateStore.loadState(sessionId))?.status === 'failed') return retrySession(context, agent, sessionId, options);
    return launcher.handleOfRunningSession(agent, sessionId, run?.runId);
  }
  await stateStore.saveState(sessionId, { error: undefined, failureReason: undefined });
  await stateStore.clearInterruptFlag(sessionId); // a flag left by abort() must not stop the retried run
  await config.streamManager.reactivateStream(state.streamId ?? sessionId);
  const runId = newRunId();
  return launcher.startRun(agent, sessionId, runId, run === null ? {} : { resume: { previousRunId: run.runId } }, options);
}

import type { AnyAgentConfig } from '../agent/index.js';
import type { Logger } from '../hooks/types.js';
import { readPersistentMarker } from '../orchestration/persistent-session.js';
import { isParkedRunStatus } from '../orchestration/session-transitions.js';
import { peekRegisteredAgent } from '../steps/runtime-registry.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { SessionState } from '../types/session.js';
import { descendantSessions } from './run-control.js';
import { openCallsOf } from '../store/open-calls.js';
import type { AgentExecutionHandle } from './types.js';

/** Resume one session (the executor's `resume()`). */
export type ResumeSession = (agent: AnyAgentConfig, sessionId: string) => Promise<AgentExecutionHandle<any>>;

/**
 * Companions (persistent sub-agents) anywhere below `rootSessionId` that parked waiting for a human and whose every
 * call is now answered, unless their parent's parked step waits for them (the parent's resume continues those):
 * each is resumed on its own session (its turn continues; its end reaches the parent's ref and
 * wakes a waiting parent run). This is how a submission against the root (`autoResumeOnSubmit`) and `resume(root)`
 * reach parked companions, as they reach parked ephemeral children. A companion whose resume is refused (a
 * concurrent resume won, or it moved on) is skipped. Returns the handles of the turns started.
 *
 * @example
 * const started = await resumeParkedCompanions(stateStore, logger, 'root-1', (agent, id) => executor.resume(agent, id));
 */
export async function resumeParkedCompanions(
  stateStore: SessionStateStore,
  logger: Logger,
  rootSessionId: string,
  resume: ResumeSession,
): Promise<Array<AgentExecutionHandle<any>>> {
  const root = await stateStore.loadState(rootSessionId);
  if (root === null) return [];
  const started: Array<AgentExecutionHandle<any>> = [];
  for (const sessionId of await descendantSessions(stateStore, rootSessionId, ['paused_awaiting_client'])) {
    const state = await stateStore.loadState(sessionId);
    if (state === null || !(await answeredAndParked(stateStore, state)) || (await awaitedByParent(stateStore, state))) continue;
    const agent = companionAgent(root, state.agentType);
    if (agent === undefined) continue;
    try {
      started.push(await resume(agent, sessionId));
    } catch {
      logger.warn('companion.resume_skipped', { sessionId: rootSessionId, childSessionId: sessionId });
    }
  }
  return started;
}

/** A companion session parked for a human, with no call left unanswered. */
async function answeredAndParked(stateStore: SessionStateStore, state: SessionState): Promise<boolean> {
  if (readPersistentMarker(state.metadata) === undefined || state.parentSessionId === undefined) return false;
  if (state.status !== 'active' || state.suspendedStepId === undefined) return false;
  if (openCallsOf(state).length > 0) return false;
  return isParkedRunStatus((await stateStore.getCurrentRun(state.sessionId))?.status);
}

/**
 * A blocking companion whose parent's parked step waits for it: the parent's resume continues it (the cascade,
 * `CompanionSettleStep.prepareContinue`) and hands its turn's result to the waiting call, so it is not resumed here.
 */
async function awaitedByParent(stateStore: SessionStateStore, state: SessionState): Promise<boolean> {
  if (state.parentSessionId === undefined) return false;
  const parent = await stateStore.loadState(state.parentSessionId);
  return Object.values(parent?.suspendedAwaitingChildren ?? {}).some((wait) => wait.childSessionId === state.sessionId);
}

/** The companion's agent: registered in this process, or found among the root agent's persistent agents. */
function companionAgent(root: SessionState, agentType: string): AnyAgentConfig | undefined {
  const registered = peekRegisteredAgent(agentType);
  if (registered !== undefined) return registered;
  return companionEntry(root.agentType, agentType)?.agent;
}

/**
 * The `persistentAgents` entry of the (registered) agent `parentAgentType` for companions of `agentType`.
 *
 * @example
 * companionEntry('desk', 'clerk')?.mode; // 'blocking'
 */
export function companionEntry(parentAgentType: string, agentType: string): AnyAgentConfig['persistentAgents'][number] | undefined {
  return peekRegisteredAgent(parentAgentType)?.persistentAgents.find((entry) => entry.agentType === agentType);
}

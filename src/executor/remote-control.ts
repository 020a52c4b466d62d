import type { RemoteSubAgentTool } from '../agent/index.js';
import { peekRegisteredAgent, peekRuntimeDependencies } from '../steps/runtime-registry.js';
import type { SessionStateStore } from '../store/state-store.js';

/** Longest wait for a remote server to take an interrupt or abort (the remote call's own window also forwards it). */
const FORWARD_WAIT_MS = 5_000;

/**
 * Forward an interrupt or abort of `sessionIds` (a session and its local descendants) to their running remote
 * sub-agents through each tool's transport (found on the agents registered in this process). An abort also
 * records those refs `terminated`, which the remote call's stream window in flight sees and acts on too.
 * Best effort and bounded: an unreachable remote server does not hold up the local interrupt or abort. A ref
 * whose agent is not registered in this process has no transport here: it is only recorded (the parent's window
 * in flight, if any, forwards it) and `remote_subagent.forward_skipped` is logged.
 *
 * @example
 * await forwardToRemoteSubAgents(stateStore, ['root', 'root-sub-c1'], 'abort', 'Aborted');
 */
export async function forwardToRemoteSubAgents(stateStore: SessionStateStore, sessionIds: readonly string[], action: 'interrupt' | 'abort', reason?: string): Promise<void> {
  const calls: Array<Promise<void>> = [];
  for (const sessionId of sessionIds) {
    const refs = (await stateStore.getSubSessionRefs(sessionId)).filter((ref) => ref.remote !== undefined && ref.status === 'running');
    if (refs.length === 0) continue;
    const agentType = (await stateStore.loadState(sessionId))?.agentType;
    const agent = agentType === undefined ? undefined : peekRegisteredAgent(agentType);
    for (const ref of refs) {
      if (action === 'abort') await stateStore.updateSubSessionRef(sessionId, ref.subSessionId, { status: 'terminated', error: reason ?? 'Aborted' });
      const tool = agent?.tools.find((candidate): candidate is RemoteSubAgentTool => candidate.kind === 'remote' && candidate.agentType === ref.agentType);
      if (tool !== undefined) calls.push(tool.transport[action](ref.subSessionId, reason).catch(() => undefined));
      else peekRuntimeDependencies()?.logger.warn('remote_subagent.forward_skipped', { sessionId, subSessionId: ref.subSessionId, action });
    }
  }
  if (calls.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(calls), new Promise<void>((resolve) => (timer = setTimeout(resolve, FORWARD_WAIT_MS)))]);
  clearTimeout(timer);
}

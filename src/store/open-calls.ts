import type { PendingClientToolCall, SessionState } from '../types/session.js';
import type { SessionStateStore } from './state-store.js';

/**
 * The calls of a session no one has answered yet (client tool results or approvals without `submittedAt`), in the
 * order the session holds them.
 *
 * @example
 * if (openCallsOf(await stateStore.loadState('s1')).length > 0) showApprovalButtons();
 */
export function openCallsOf(state: Pick<SessionState, 'pendingClientToolCalls'> | null | undefined): PendingClientToolCall[] {
  return Object.values(state?.pendingClientToolCalls ?? {}).filter((entry) => entry.submittedAt === undefined);
}

/**
 * The open calls of a root session's sub-agents and companions: the root's ownership map names each call's owner, a
 * call is open while its owner's entry has no submission and the root has not recorded it completed. Loads each owner
 * once (at most `maxOwners` of them, in the map's order), and answers in the map's order.
 *
 * @example
 * const waiting = [...openCallsOf(root), ...(await openCallsOfDescendants(stateStore, root))];
 */
export async function openCallsOfDescendants(
  stateStore: Pick<SessionStateStore, 'loadState'>,
  root: SessionState,
  options: { maxOwners?: number } = {},
): Promise<PendingClientToolCall[]> {
  const completed = root.completedClientToolCalls ?? {};
  const owned = Object.entries(root.clientToolCallOwnership ?? {}).filter(
    ([toolCallId, owner]) => owner !== root.sessionId && completed[toolCallId] === undefined,
  );
  if (owned.length === 0) return [];
  const ownerIds = [...new Set(owned.map(([, owner]) => owner))].slice(0, options.maxOwners);
  const owners = new Map(await Promise.all(ownerIds.map(async (owner) => [owner, await stateStore.loadState(owner)] as const)));
  return owned.flatMap(([toolCallId, owner]) => {
    const entry = owners.get(owner)?.pendingClientToolCalls?.[toolCallId];
    return entry !== undefined && entry.submittedAt === undefined ? [entry] : [];
  });
}

/**
 * Whether a session may be waiting for a human: it holds an open call of its own ({@link openCallsOf}), or its
 * ownership map names a sub-agent's call the session has not recorded completed (that call may still be open: see
 * {@link openCallsOfDescendants}). A cheap first look: `false` means nothing of its tree waits.
 *
 * @example
 * if (mayAwaitHuman(state)) waiting = [...openCallsOf(state), ...(await openCallsOfDescendants(stateStore, state))];
 */
export function mayAwaitHuman(
  state: Pick<SessionState, 'sessionId' | 'pendingClientToolCalls' | 'clientToolCallOwnership' | 'completedClientToolCalls'>,
): boolean {
  if (openCallsOf(state).length > 0) return true;
  const completed = state.completedClientToolCalls ?? {};
  const owned = Object.entries(state.clientToolCallOwnership ?? {});
  return owned.some(([toolCallId, owner]) => owner !== state.sessionId && completed[toolCallId] === undefined);
}

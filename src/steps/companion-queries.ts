import { decideCurrentTurn, readLatestCompanionTurn } from '../orchestration/companion-turn.js';
import { companionResult, type CompanionTurnOutcome } from '../orchestration/companions.js';
import { readPersistentMarker } from '../orchestration/persistent-session.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { SubSessionRef } from '../types/session.js';
import { outcomeOfRun } from './companion-children.js';

/** The persistent ref named `name` (companions only). */
export function namedRef(refs: readonly SubSessionRef[], name: string | undefined): SubSessionRef | undefined {
  return name === undefined ? undefined : refs.find((ref) => ref.mode === 'persistent' && ref.name === name);
}

/** `companion__listChildren`: every companion with its agent type and status, in spawn order. */
export function listCompanions(refs: readonly SubSessionRef[]): { children: Array<{ name: string; agentType: string; status: SubSessionRef['status']; sessionId: string }> } {
  return {
    children: refs
      .filter((ref) => ref.mode === 'persistent')
      .map((ref) => ({ name: ref.name ?? ref.subSessionId, agentType: ref.agentType, status: ref.status, sessionId: ref.subSessionId })),
  };
}

/**
 * `companion__getChildStatus`: the ref's status, and for an ended turn its output or error (read from the child's
 * current run, so a failure is reported as a failure).
 */
export async function companionStatus(stateStore: SessionStateStore, ref: SubSessionRef): Promise<Record<string, unknown>> {
  const name = ref.name ?? ref.subSessionId;
  if (ref.status === 'running') return { name, agentType: ref.agentType, status: 'running' };
  if (ref.status === 'terminated') return { name, agentType: ref.agentType, status: 'terminated', ...(ref.error === undefined ? {} : { error: ref.error }) };
  const outcome = outcomeOfRun(await stateStore.getCurrentRun(ref.subSessionId));
  return { agentType: ref.agentType, ...companionResult(name, outcome) };
}

/**
 * The outcome of a companion's newest turn for `waitForResult` (the pure table `decideCurrentTurn`): `running` while
 * the turn its parent sent last has no run record yet (queued behind a running turn, or about to open) or its ref
 * says a turn runs, then the current run's outcome; a session aborted from outside counts as terminated.
 *
 * @example
 * const outcome = await currentTurnOutcome(stateStore, 's1', 's1-agent-r'); // { kind: 'running' } while queued
 */
export async function currentTurnOutcome(stateStore: SessionStateStore, parentSessionId: string, childSessionId: string): Promise<CompanionTurnOutcome> {
  const ref = (await stateStore.getSubSessionRefs(parentSessionId)).find((candidate) => candidate.subSessionId === childSessionId);
  const state = await stateStore.loadState(childSessionId);
  const latest = readLatestCompanionTurn(state?.metadata);
  const opened = latest !== undefined && (await stateStore.getRun(childSessionId, latest)) !== null;
  const action = decideCurrentTurn({
    terminated: ref?.status === 'terminated' || state?.failureReason === 'aborted',
    latestTurn: latest === undefined ? 'none' : opened ? 'opened' : 'not_opened',
    generationClosed: readPersistentMarker(state?.metadata)?.phase === 'closed',
    refRunning: ref?.status === 'running',
  });
  switch (action) {
    case 'terminated':
      return { kind: 'terminated' };
    case 'pending':
    case 'running':
      return { kind: 'running' };
    case 'current_run':
      return outcomeOfRun(await stateStore.getCurrentRun(childSessionId));
  }
}

/**
 * The open human calls of a companion's tree (its own, and those of its sub-agents and companions): the root's
 * ownership map names each call's owner; a call is open until the root records it completed. Parent-first ids
 * (`${parent}-sub-…`, `${parent}-agent-…`) make the tree a prefix.
 */
export async function openCallsBelow(stateStore: SessionStateStore, rootSessionId: string, childSessionId: string): Promise<string[]> {
  const root = await stateStore.loadState(rootSessionId);
  return Object.entries(root?.clientToolCallOwnership ?? {})
    .filter(([toolCallId, owner]) => (owner === childSessionId || owner.startsWith(`${childSessionId}-`)) && root?.completedClientToolCalls?.[toolCallId] === undefined)
    .map(([toolCallId]) => toolCallId);
}

import type { SessionStateStore } from '../store/state-store.js';
import { rememberNewest } from '../orchestration/bounded-map.js';

/** Step starts remembered per process (the oldest go first). */
const MAX_REMEMBERED = 256;

const remembered = new Map<string, { store: SessionStateStore; customState: Record<string, unknown> }>();

/**
 * Remember the custom state an LLM step of this process built its prompt from: the committed state at the
 * step boundary (the commit of the step before ran at the start of that LLM step). The step's phase-1 tools seed
 * from it instead of reading the session again.
 *
 * @example
 * rememberStepStartState(stateStore, { runId, step }, state.customState);
 */
export function rememberStepStartState(store: SessionStateStore, at: { runId: string; step: number }, customState: Record<string, unknown>): void {
  rememberNewest(remembered, `${at.runId}:${at.step}`, { store, customState }, MAX_REMEMBERED);
}

/**
 * A copy of the custom state remembered for step `step` of run `runId` in this process, or `undefined` (another
 * process ran the LLM step, or this one recovered the workflow): the caller then reads the store.
 *
 * @example
 * const base = stepStartState(stateStore, { runId, step }) ?? (await stateStore.loadState(sessionId))?.customState;
 */
export function stepStartState(store: SessionStateStore, at: { runId: string; step: number }): Record<string, unknown> | undefined {
  const entry = remembered.get(`${at.runId}:${at.step}`);
  return entry === undefined || entry.store !== store ? undefined : structuredClone(entry.customState);
}

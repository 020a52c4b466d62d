import type { SessionStateStore } from '../store/state-store.js';
import type { StoredMessage } from '../types/message.js';
import type { InterruptFlagResult, SessionState } from '../types/session.js';
import { loadHistory } from './history-cache.js';
import { loadStepState } from './load-step-state.js';
import { rememberNewest } from '../orchestration/bounded-map.js';
import type { HookManager } from '../hooks/index.js';
import type { StreamManager } from '../stream/stream-manager.js';
import { ChunkEmitter } from './stream-writers.js';
import { dropFirstCallAhead, MAX_CALLS_AHEAD, startFirstCallAhead } from './first-call-ahead.js';
import { stepEnvironment, type RunScope } from './step-scope.js';

/** The reads a run's first LLM step starts from: its interrupt flag, its session and its history. */
export interface FirstStepReads {
  readonly flag: Promise<InterruptFlagResult>;
  readonly state: Promise<SessionState | null>;
  readonly history: Promise<StoredMessage[]>;
}

/**
 * Reads started and not yet taken, per run: as many as calls may be made ahead from them (`MAX_CALLS_AHEAD`), since a
 * step whose reads were dropped for room reads again and cannot adopt its call (made twice).
 */
const MAX_STARTED = MAX_CALLS_AHEAD;

const started = new Map<string, { store: SessionStateStore; reads: FirstStepReads }>();

/**
 * Start the first LLM step's reads of a stored turn beside its begin's own read of the run: the begin writes nothing
 * and its next operation is that step (no hook, no companion delivery between), so nothing of this run changes the
 * session meanwhile, and the step takes them instead of reading after the begin (one round trip fewer before the
 * model is called). An interrupt that lands between these reads and the model call is seen at the next step boundary,
 * as one landing during the call is.
 *
 * @example
 * startFirstStepReads(stateStore, input);
 * const run = await stateStore.getRun(input.sessionId, input.runId);
 */
export function startFirstStepReads(store: SessionStateStore, at: { sessionId: string; runId: string }): FirstStepReads {
  const reads: FirstStepReads = {
    flag: store.readInterruptFlag(at.sessionId),
    state: loadStepState(store, at.sessionId),
    history: loadHistory(store, at.sessionId),
  };
  // Taken (and awaited) by the step, or dropped: never an unhandled rejection.
  for (const read of [reads.flag, reads.state, reads.history]) read.catch(() => undefined);
  rememberNewest(started, at.runId, { store, reads }, MAX_STARTED);
  return reads;
}

/**
 * Whether a run's begin writes nothing and its workflow's next DBOS operation is its first LLM step: a stored fresh
 * turn (`turnStored`, no resume) of an agent without companions (their ended turns are delivered between).
 *
 * @example
 * const withNextStep = firstStepFollowsBegin(input, agent.persistentAgents.length);
 */
export function firstStepFollowsBegin(input: { turnStored?: true; resume?: unknown }, companions: number): boolean {
  return input.turnStored === true && input.resume === undefined && companions === 0;
}

/**
 * Whether a begin fires no hook that could change what its first LLM step reads (no onAgentStart, no onAgentResumed):
 * with {@link firstStepFollowsBegin}, that step's reads may start before it.
 *
 * @example
 * const readsAhead = firstStepNext && beginFiresNoHook(hooks);
 */
export function beginFiresNoHook(hooks: Pick<HookManager, 'hasHooks'>): boolean {
  return !hooks.hasHooks('onAgentStart') && !hooks.hasHooks('onAgentResumed');
}

/**
 * Start a run's first LLM step's reads (see {@link startFirstStepReads}), open its stream's writer and prepare its
 * first model call from those reads (`startFirstCallAhead`: made once `started`, DBOS's record of the workflow's
 * start, resolves), right after its start committed, while DBOS records its workflow's start: its begin then starts
 * nothing, and its first LLM step adopts the call (the model is called, and its first delta streamed, while the run
 * begins). Only when {@link firstStepFollowsBegin} and {@link beginFiresNoHook}, for a run whose workflow starts in
 * this process; returns whether it started them (drop them with {@link dropFirstStepReads} if the workflow does not
 * start).
 *
 * @example
 * const readsAhead = startRunReadsAhead({ stateStore, streamManager }, input, { companions: 0, hooks, started });
 */
export function startRunReadsAhead(
  stores: { stateStore: SessionStateStore; streamManager: StreamManager },
  run: RunScope & { turnStored?: true; resume?: unknown },
  agent: { companions: number; hooks: Pick<HookManager, 'hasHooks'>; started: Promise<unknown> },
): boolean {
  if (!firstStepFollowsBegin(run, agent.companions) || !beginFiresNoHook(agent.hooks)) return false;
  const reads = startFirstStepReads(stores.stateStore, run);
  new ChunkEmitter(stores.streamManager, run.streamId, run.sessionId, run.agentType, 1).prepare();
  startFirstCallAhead(run, stepEnvironment(run, 1), reads, agent.started);
  return true;
}

/**
 * Whether reads were started for run `runId` on `store` and not yet taken or dropped.
 *
 * @example
 * if (!firstStepReadsStarted(stateStore, input.runId)) startFirstStepReads(stateStore, input);
 */
export function firstStepReadsStarted(store: SessionStateStore, runId: string): boolean {
  return started.get(runId)?.store === store;
}

/**
 * The reads {@link startFirstStepReads} started for run `runId` on `store` (taken once), or `undefined`: the step then
 * reads for itself.
 *
 * @example
 * const early = input.step === 1 ? takeFirstStepReads(stateStore, input.runId) : undefined;
 */
export function takeFirstStepReads(store: SessionStateStore, runId: string): FirstStepReads | undefined {
  const entry = started.get(runId);
  started.delete(runId);
  return entry?.store === store ? entry.reads : undefined;
}

/**
 * Drop the reads started for `runId` and the call made ahead from them (its begin found it aborted: no step follows).
 *
 * @example
 * dropFirstStepReads(input.runId);
 */
export function dropFirstStepReads(runId: string): void {
  started.delete(runId);
  dropFirstCallAhead(runId);
}

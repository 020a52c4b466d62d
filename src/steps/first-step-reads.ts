import type { SessionStateStore } from '../store/state-store.js';
import type { StepRecordConnection } from '../types/step-records.js';
import type { StoredMessage } from '../types/message.js';
import type { InterruptFlagResult, SessionState } from '../types/session.js';
import { loadHistory } from './history-cache.js';
import { loadStepState } from './load-step-state.js';
import { rememberNewest } from '../orchestration/bounded-map.js';
import type { HookManager } from '../hooks/index.js';
import type { StreamManager } from '../stream/stream-manager.js';
import { ChunkEmitter } from './stream-writers.js';
import { dropFirstCallAhead, startFirstCallAhead } from './first-call-ahead.js';
import { stepEnvironment, type RunScope } from './step-scope.js';

/** The reads a run's first LLM step starts from: its interrupt flag, its session and its history. */
export interface FirstStepReads {
  readonly flag: Promise<InterruptFlagResult>;
  readonly state: Promise<SessionState | null>;
  readonly history: Promise<StoredMessage[]>;
}

/** Reads started and not yet taken, per run (a process that dies before the step takes them leaves a few behind). */
const MAX_STARTED = 256;

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
  return keepFirstStepReads(store, at.runId, {
    flag: store.readInterruptFlag(at.sessionId),
    state: loadStepState(store, at.sessionId),
    history: loadHistory(store, at.sessionId),
  });
}

/**
 * The first LLM step's reads (see {@link startFirstStepReads}) on `connection`, inside a start's open transaction
 * (`StateStoreStepRecords.readsOn`: they see its writes and are answered with its COMMIT), not kept for the step until
 * {@link startRunReadsAhead} is given them once that committed. `undefined` when the store reads only on its own.
 *
 * @example
 * const reads = firstStepReadsOn(stateStore, connection, input.sessionId);
 */
export function firstStepReadsOn(store: SessionStateStore, connection: StepRecordConnection, sessionId: string): FirstStepReads | undefined {
  const on = store.stepRecords?.readsOn?.(connection);
  if (on === undefined) return undefined;
  const reads: FirstStepReads = {
    flag: on.readInterruptFlag(sessionId),
    state: on.loadStateForStep(sessionId),
    history: loadHistory(store, sessionId, on),
  };
  for (const read of [reads.flag, reads.state, reads.history]) read.catch(() => undefined);
  return reads;
}

/** Keep `reads` for run `runId`'s first LLM step (taken once); never an unhandled rejection meanwhile. */
function keepFirstStepReads(store: SessionStateStore, runId: string, reads: FirstStepReads): FirstStepReads {
  // Taken (and awaited) by the step, or dropped: never an unhandled rejection.
  for (const read of [reads.flag, reads.state, reads.history]) read.catch(() => undefined);
  rememberNewest(started, runId, { store, reads }, MAX_STARTED);
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
 * start). `taken`: the reads, sent already in the start's transaction ({@link firstStepReadsOn}), to keep instead.
 *
 * @example
 * const readsAhead = startRunReadsAhead({ stateStore, streamManager }, input, { companions: 0, hooks, started });
 */
export function startRunReadsAhead(
  stores: { stateStore: SessionStateStore; streamManager: StreamManager },
  run: RunScope & { turnStored?: true; resume?: unknown },
  agent: { companions: number; hooks: Pick<HookManager, 'hasHooks'>; started: Promise<unknown> },
  taken?: FirstStepReads,
): boolean {
  if (!runReadsMayGoAhead(run, agent)) return false;
  const reads = taken === undefined ? startFirstStepReads(stores.stateStore, run) : keepFirstStepReads(stores.stateStore, run.runId, taken);
  new ChunkEmitter(stores.streamManager, run.streamId, run.sessionId, run.agentType, 1).prepare();
  startFirstCallAhead(run, stepEnvironment(run, 1), reads, agent.started);
  return true;
}

/**
 * Whether {@link startRunReadsAhead} starts a run's first step's reads: its begin writes nothing and fires no hook, and
 * its first LLM step follows it ({@link firstStepFollowsBegin}, {@link beginFiresNoHook}).
 *
 * @example
 * const reads = runReadsMayGoAhead(input, agent) ? firstStepReadsOn(stateStore, connection, input.sessionId) : undefined;
 */
export function runReadsMayGoAhead(run: { turnStored?: true; resume?: unknown }, agent: { companions: number; hooks: Pick<HookManager, 'hasHooks'> }): boolean {
  return firstStepFollowsBegin(run, agent.companions) && beginFiresNoHook(agent.hooks);
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

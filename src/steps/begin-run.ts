import { healUnpairedCalls, markCallsCompleted } from '../orchestration/hitl-decisions.js';
import type { HookManager } from '../hooks/index.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { StateStoreStepRecords } from '../store/step-records.js';
import { joining, SEPARATE_RECORD, type StepRecord } from '../journal/step-record.js';
import { updateSessionWithRetry } from '../store/update-session-with-retry.js';
import type { Message, StoredMessage, ToolResultMessage, UserMessage } from '../types/message.js';
import type { RunRecord, SessionStateWrite } from '../types/session.js';
import { loadHistory } from './history-cache.js';
import { beginFiresNoHook, dropFirstStepReads, firstStepReadsStarted, startFirstStepReads } from './first-step-reads.js';
import { reopenCancelledRun } from './reopen-run.js';
import { workflowCancelled } from '../journal/journal.js';
import type { StreamManager } from '../stream/stream-manager.js';
import { atRunBoundary } from './run-boundary-probe.js';
import { hookIdentity, stepEnvironment, turnKeyOf, type RunScope } from './step-scope.js';
import { markWorkflowStartedHere } from './stream-reset-tracker.js';

/** Input of `RunLifecycleStep.begin` (and of a persistent turn's `openTurn`, which begins its run itself). */
export interface BeginRunInput extends RunScope {
  /** The turn's user message (id `${runId}:0:0`), appended exactly once. */
  userMessage?: UserMessage;
  /** Custom state to write before the first step (validated by the executor). */
  initialState?: Record<string, unknown>;
  /** Set for resume/retry runs: onAgentResumed fires here unless a suspension is settled (its wake fires it). */
  resumedFrom?: { previousRunId: string; settlesSuspension: boolean };
  /**
   * Pair every tool call of the last assistant message left without a result (not only a dangling `__finish__`):
   * a persistent session's new turn after a turn that ended interrupted or failed.
   */
  healUnpaired?: boolean;
  /** The run's start stored the turn (`AgentWorkflowInput.turnStored`): nothing to append or write, only the hooks. */
  turnStored?: true;
}

/** What beginning a run appends: results for calls left unpaired (first), then the turn's user message. */
export interface BeginAppends {
  messages: Message[];
  healed: ToolResultMessage[];
}

/**
 * Whether beginning `input` reads the history: it appends a user message, or continues a transcript that may end on
 * tool calls without results.
 *
 * @example
 * const history = beginReadsHistory(input) ? await loadHistory(stateStore, input.sessionId) : [];
 */
export function beginReadsHistory(input: BeginRunInput): boolean {
  return input.userMessage !== undefined || continuesUnsettled(input);
}

/**
 * What beginning `input` appends to `history` (pure): a retry or resume that does not settle a parked step (or a
 * persistent turn after a failed one) pairs the calls left without results; a user message already appended (a re-run)
 * is not appended again, and then nothing is healed either (the first run did it).
 *
 * @example
 * const { messages, healed } = beginAppends(input, history);
 */
export function beginAppends(input: BeginRunInput, history: readonly StoredMessage[], now: number): BeginAppends {
  if (!beginReadsHistory(input)) return { messages: [], healed: [] };
  const alreadyAppended = input.userMessage !== undefined && history.some((message) => message.id === input.userMessage?.id);
  const healed = alreadyAppended ? [] : healUnpairedCalls(history, input.runId, continuesUnsettled(input));
  const messages: Message[] = [...healed];
  if (input.userMessage !== undefined) messages.push({ ...input.userMessage, createdAt: input.userMessage.createdAt ?? now });
  return { messages, healed };
}

/**
 * Append what {@link beginAppends} decided (the healed calls also leave the session's pending client calls).
 *
 * @example
 * await appendBeginMessages(stateStore, sessionId, beginAppends(input, history, Date.now()));
 */
export async function appendBeginMessages(stateStore: SessionStateStore, sessionId: string, appends: BeginAppends): Promise<void> {
  if (appends.healed.length > 0) await settleHealedCalls(stateStore, sessionId, appends.healed);
  if (appends.messages.length > 0) await stateStore.appendMessages(sessionId, appends.messages);
}

/**
 * The session fields a run's begin writes: the step count restarts, the initial state (if any) replaces customState.
 *
 * @example
 * await stateStore.saveState(sessionId, beginSessionWrite(input));
 */
export function beginSessionWrite(input: Pick<BeginRunInput, 'initialState'>): SessionStateWrite {
  return { stepCount: 0, ...(input.initialState === undefined ? {} : { customState: input.initialState }) };
}

/**
 * onAgentStart, then onAgentResumed for a resume that does not settle a parked step (its wake fires that).
 *
 * @example
 * await fireBeginHooks(input, stateStore);
 */
export async function fireBeginHooks(input: BeginRunInput, stateStore: SessionStateStore, hooks?: HookManager): Promise<void> {
  const manager = hooks ?? (await stepEnvironment(input, 0)).hooks;
  await manager.fire('onAgentStart', { ...hookIdentity(input), stepCount: 0 });
  if (input.resumedFrom !== undefined && !input.resumedFrom.settlesSuspension) {
    const state = await stateStore.loadState(input.sessionId);
    await manager.fire('onAgentResumed', {
      ...hookIdentity(input),
      previousRunId: input.resumedFrom.previousRunId,
      ...(state?.checkpointId === undefined ? {} : { resumedFromCheckpointId: state.checkpointId }),
    });
  }
}

/**
 * What a begin decides from: its run (read, or known), and whether its first LLM step's reads were started.
 *
 * @example
 * const { run, readsAhead } = await beginReads(input, true);
 */
export interface BeginReads {
  run: RunRecord | null;
  readsAhead: boolean;
  /**
   * Asked with `checkStream` (a queued run's begin followed by its first LLM step): whether the run's stream holds none
   * of its chunks yet (read beside the run). A begin whose record rides with that step's (fused journal) runs again
   * after a crash during the step, whose writer may have stored part of its text meanwhile: that step then resets it.
   */
  streamUnwritten?: boolean;
}

/**
 * A begin's reads: its run, and — for a stored turn's begin with no begin hook, whose next operation is its first LLM
 * step (`firstStepNext`; it writes nothing) — that step's reads beside it. Started by `beginRun`, or ahead of the
 * begin's step (`StepOptions.readAhead`), when the begin's step then drops them if it is replayed.
 *
 * @example
 * const ahead = beginReads(input, true);
 * await beginRun(input, undefined, record, { firstStepNext: true, ahead });
 */
export async function beginReads(
  input: BeginRunInput,
  firstStepNext: boolean,
  known?: { run: RunRecord | null },
  checkStream = false,
): Promise<BeginReads> {
  const { dependencies, hooks } = await stepEnvironment(input, 0);
  const { stateStore } = dependencies;
  const stream = checkStream ? dependencies.streamManager.getInfo(input.streamId) : undefined;
  stream?.catch(() => undefined); // awaited below, unless the run read fails first
  const readsAhead = firstStepNext && input.turnStored === true && beginFiresNoHook(hooks);
  // Started already when this process launched the run (`startRunReadsAhead`); dropped if this begin may not use them.
  if (!readsAhead) dropFirstStepReads(input.runId);
  else if (!firstStepReadsStarted(stateStore, input.runId)) startFirstStepReads(stateStore, input);
  // abort() may land after the run record was created and before this step: the run stays aborted and the
  // workflow ends without touching the session (abort() recorded its outcome).
  const run = known === undefined ? await stateStore.getRun(input.sessionId, input.runId) : known.run;
  if (stream === undefined) return { run, readsAhead };
  const info = await stream;
  return { run, readsAhead, streamUnwritten: run !== null && info !== null && info.lastSequence <= run.startSequence };
}

/**
 * The whole begin of a run, inside a step: nothing when the run was aborted meanwhile; else the appends, the session
 * write, the run `running` with this workflow (unless it already is: rewriting would undo an abort that landed since
 * the check), and the hooks.
 *
 * @example
 * const begun = await beginRun(input);
 */
export async function beginRun(
  input: BeginRunInput,
  known?: { run: RunRecord | null },
  record: StepRecord = SEPARATE_RECORD,
  options: { firstStepNext?: boolean; ahead?: Promise<BeginReads>; checkStream?: boolean } = {},
): Promise<{ stepCount: number; aborted?: true }> {
  const { dependencies, hooks } = await stepEnvironment(input, 0);
  const { stateStore } = dependencies;
  const reads = options.ahead ?? beginReads(input, options.firstStepNext === true, known, options.checkStream === true);
  const { run, readsAhead, streamUnwritten } = await reads;
  // No earlier attempt of this queued run wrote to its stream: its first LLM step here need not reset it.
  if (streamUnwritten === true) markWorkflowStartedHere(turnKeyOf(input));
  if (run?.status === 'aborted' && !(await resumedAfterCancel(input, dependencies.streamManager, stateStore))) {
    if (readsAhead) dropFirstStepReads(input.runId);
    return { stepCount: 0, aborted: true };
  }
  if (input.turnStored === true) {
    await fireBeginHooks(input, stateStore, hooks);
    await atRunBoundary('begin_deferred', input.sessionId);
    return { stepCount: 0 };
  }
  const history = beginReadsHistory(input) ? await loadHistory(stateStore, input.sessionId) : [];
  const appends = beginAppends(input, history, Date.now());
  const writesRun = run?.status !== 'running' || run.workflowId !== input.workflowId;
  const joined = await beginJoinsRecord(record, stateStore, hooks, appends);
  if (joined !== undefined) {
    // No hook to fire and nothing healed: the begin's writes commit with the step's record (one transaction), and a
    // root run's stream is created there too when the stream manager joins (not by the first chunk's writer).
    const streams = input.streamId === input.sessionId ? await joining(record, dependencies.streamManager.stepRecords) : undefined;
    record.defer({
      within: async (connection) => {
        await streams?.openStreamOn(connection, input.streamId, input.agentType);
        if (appends.messages.length > 0) await joined.appendMessagesOn(connection, input.sessionId, appends.messages);
        await joined.saveStateOn(connection, input.sessionId, beginSessionWrite(input));
        if (writesRun) await joined.updateRunStatusOn(connection, input.sessionId, input.runId, 'running', { workflowId: input.workflowId });
      },
    });
    await atRunBoundary('begin_deferred', input.sessionId);
    return { stepCount: 0 };
  }
  await appendBeginMessages(stateStore, input.sessionId, appends);
  await stateStore.saveState(input.sessionId, beginSessionWrite(input));
  if (writesRun) await stateStore.updateRunStatus(input.sessionId, input.runId, 'running', { workflowId: input.workflowId });
  await fireBeginHooks(input, stateStore, hooks);
  await atRunBoundary('begin_deferred', input.sessionId);
  return { stepCount: 0 };
}

/**
 * The store's step records when a run's begin commits with its step's record: the store joins it, no onAgentStart or
 * onAgentResumed hook is registered (a hook sees the begin's writes committed), and no call is healed (that write is
 * a compare-and-set loop of its own).
 */
async function beginJoinsRecord(
  record: StepRecord,
  stateStore: SessionStateStore,
  hooks: Pick<HookManager, 'hasHooks'>,
  appends: BeginAppends,
): Promise<StateStoreStepRecords | undefined> {
  if (appends.healed.length > 0 || hooks.hasHooks('onAgentStart') || hooks.hasHooks('onAgentResumed')) return undefined;
  return joining(record, stateStore.stepRecords);
}

/**
 * A stored turn's begin rides with its first model step's record, so a DBOS cancel during that call leaves no row: a
 * `DBOS.resumeWorkflow` then runs the begin again and finds the run aborted. Unless the workflow is still cancelled
 * (an `abort()` racing this begin cancels it before recording the run), the run is reopened here, as the first live
 * step after a recorded begin reopens it (`reopenResumedRun`).
 *
 * @throws NotResumableError `NOT_RESUMABLE` when a later run owns the session.
 */
async function resumedAfterCancel(input: BeginRunInput, streamManager: StreamManager, stateStore: SessionStateStore): Promise<boolean> {
  if (input.turnStored !== true || (await workflowCancelled(input.workflowId))) return false;
  return reopenCancelledRun(stateStore, streamManager, input);
}

function continuesUnsettled(input: BeginRunInput): boolean {
  return (input.resumedFrom !== undefined && !input.resumedFrom.settlesSuspension) || input.healUnpaired === true;
}

async function settleHealedCalls(stateStore: SessionStateStore, sessionId: string, healed: readonly ToolResultMessage[]): Promise<void> {
  await updateSessionWithRetry(stateStore, sessionId, (state) => {
    const ids = healed.map((message) => message.toolCallId).filter((id) => state.pendingClientToolCalls?.[id] !== undefined);
    if (ids.length === 0) return { write: null, value: undefined };
    const now = Date.now();
    const pending = Object.fromEntries(Object.entries(state.pendingClientToolCalls ?? {}).filter(([id]) => !ids.includes(id)));
    return {
      write: { pendingClientToolCalls: pending, completedClientToolCalls: markCallsCompleted(state.completedClientToolCalls, ids, now) },
      value: undefined,
    };
  });
}

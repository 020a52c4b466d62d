import {
  readPersistentMarker,
  withPersistentMarker,
  type PersistentEndReason,
  type PersistentMarker,
  type PersistentTurnMessage,
  type PersistentWorkflowInput,
} from '../orchestration/persistent-session.js';
import type { SessionStateStore } from '../store/state-store.js';
import { updateSessionIfExists, updateSessionWithRetry } from '../store/update-session-with-retry.js';
import { isTerminalStatus } from '../stream/stream-status.js';
import type { RunStatus, SessionState, SessionStateWrite } from '../types/session.js';
import { runJournaledStep } from '../journal/journal.js';
import { runtimeDependencies } from './runtime-registry.js';
import type { RunScope } from './step-scope.js';
import { signalRunChanged } from './run-signals.js';
import { markWorkflowStartedHere } from './stream-reset-tracker.js';
import { appendBeginMessages, beginAppends, beginReadsHistory, beginRun, beginSessionWrite, fireBeginHooks, type BeginRunInput } from './begin-run.js';
import { loadHistory } from './history-cache.js';

/** Error text of a turn whose workflow vanished from DBOS before the turn ended (system database reset or retention). */
export const LOST_TURN_MESSAGE = 'The workflow running this turn was lost (its DBOS record is gone); the turn did not finish.';

/** Input of `PersistentStep.openTurn`. */
export interface OpenTurnInput extends RunScope {
  message: Pick<PersistentTurnMessage, 'runId' | 'resume' | 'idleTimeoutMs'>;
  /** What the run's begin appends and writes (the turn is begun in this step: no BeginRunStep follows). */
  begin: Pick<BeginRunInput, 'userMessage' | 'initialState' | 'resumedFrom'>;
  /** The generation's first turn, without a `PersistentStep.open` before it: take the inbox here (or find the session moved on). */
  opensGeneration?: boolean;
}

/** What `PersistentStep.openTurn` recorded. */
export interface OpenedTurn {
  startSequence: number;
  /** The turn's run already ended (its message was run before), or was aborted while it opened: skip it. */
  alreadyRan?: boolean;
  /** `opensGeneration` found the session moved on to another workflow (or gone): end at once. */
  superseded?: boolean;
}

/** Input of the close steps. */
export interface CloseInput {
  sessionId: string;
  workflowId: string;
}

/**
 * Durable steps of a persistent session's workflow: take the session's inbox (`open`), record each turn's run
 * (`openTurn`), and the three-phase close (`beginClose` → drain the inbox → `reopen` or `endClose`) that makes
 * ending the workflow safe against messages sent at that very moment: a sender that sees `closing` or `closed`
 * after its send checks whether its message was taken, and restarts the session with it if not.
 *
 * @example
 * const { superseded } = await PersistentStep.open(input);
 */
export class PersistentStep {
  /** Take the inbox for this generation: `superseded` when the session moved on (or is gone) — end at once. */
  static open(input: PersistentWorkflowInput): Promise<{ superseded: boolean }> {
    return runJournaledStep('PersistentStep.open', async () => ({ superseded: await takeInbox((await runtimeDependencies()).stateStore, input) }));
  }

  /**
   * Open and begin a turn (idempotent by runId): the session stream reactivated, the session `active` with its step
   * count reset, the turn's input appended (calls a failed turn left unpaired healed first), then the run record and
   * the start hooks — what BeginRunStep does for a standard run, in this one step. A run left `running` by a workflow
   * that vanished is recorded failed first.
   */
  static openTurn(input: OpenTurnInput): Promise<OpenedTurn> {
    return runJournaledStep('PersistentStep.openTurn', async () => {
      const { stateStore, streamManager } = await runtimeDependencies();
      markWorkflowStartedHere(input.turnKey ?? input.workflowId);
      const begin: BeginRunInput = { ...runScopeOf(input), ...input.begin };
      // The reads that decide the turn, together (each on its own connection).
      const [existing, previous, info, interruptSet, session, history] = await Promise.all([
        stateStore.getRun(input.sessionId, input.runId),
        stateStore.getCurrentRun(input.sessionId),
        streamManager.getInfo(input.streamId),
        stateStore.isInterruptRequested(input.sessionId),
        input.opensGeneration === true ? stateStore.loadState(input.sessionId) : undefined,
        beginReadsHistory(begin) ? loadHistory(stateStore, input.sessionId) : undefined,
      ]);
      if (input.opensGeneration === true && session !== undefined) {
        const marker = readPersistentMarker(session?.metadata);
        const live = session !== null && marker?.workflowId === input.workflowId && marker.phase === 'live';
        if (!live && (await takeInbox(stateStore, input))) return { startSequence: 0, superseded: true };
      }
      if (existing !== null) {
        // This step ran before and crashed after recording the run: the same turn, begun again (every write of the
        // begin is idempotent). A turn that already ended (a generation restarted from its start input runs its
        // initial messages again) is not run twice.
        if (existing.status !== 'running' || (await abortedMeanwhile(stateStore, input))) return { startSequence: existing.startSequence, alreadyRan: true };
        const recorded = existing.metadata as { healUnpaired?: boolean } | undefined;
        await beginRun(healing(begin, recorded?.healUnpaired === true), { run: existing });
        return { startSequence: existing.startSequence };
      }
      const startSequence = info?.lastSequence ?? 0;
      const settles = input.message.resume?.suspension !== undefined;
      const healUnpaired = input.message.resume === undefined && needsHeal(previous?.status);
      const beginning = healing(begin, healUnpaired);
      const transcript = history ?? (beginReadsHistory(beginning) ? await loadHistory(stateStore, input.sessionId) : []);
      // Independent writes, together: the lost turn's outcome, the stream reopened, the interrupt flag cleared when
      // set (an interrupt aimed at an earlier turn, or sent while the session waited, must not stop this one; one
      // sent from here on is aimed at this turn), the session active again, the turn's input. All before the run
      // record, which is what lets a handle see the turn.
      await Promise.all([
        previous !== null && previous.status === 'running'
          ? stateStore.updateRunStatus(input.sessionId, previous.runId, 'failed', { completionReason: 'failed', error: LOST_TURN_MESSAGE, endedAt: Date.now() })
          : undefined,
        info !== null && isTerminalStatus(info.status) ? streamManager.reactivateStream(input.streamId) : undefined,
        interruptSet ? stateStore.clearInterruptFlag(input.sessionId) : undefined,
        activateSession(stateStore, input.sessionId, { settles, idleTimeoutMs: input.message.idleTimeoutMs, also: beginSessionWrite(beginning) }),
        appendBeginMessages(stateStore, input.sessionId, beginAppends(beginning, transcript, Date.now())),
      ]);
      await stateStore.createRun(input.sessionId, {
        runId: input.runId,
        status: 'running',
        stepCount: 0,
        startSequence,
        workflowId: input.workflowId,
        startedAt: Date.now(),
        ...(previous === null ? {} : { previousRunId: previous.runId }),
        metadata: { persistent: true, healUnpaired },
      });
      signalRunChanged(input.runId);
      if (await abortedMeanwhile(stateStore, input)) return { startSequence, alreadyRan: true };
      await fireBeginHooks(beginning, stateStore);
      return { startSequence };
    });
  }

  /** `live` → `closing` for this generation; false when the session moved on (then end without closing). */
  static beginClose(input: CloseInput): Promise<{ ok: boolean }> {
    return runJournaledStep('PersistentStep.beginClose', async () => {
      const { stateStore } = await runtimeDependencies();
      const { value } = await updateMarker(stateStore, input.sessionId, (marker) => {
        if (marker?.workflowId !== input.workflowId || marker.phase === 'closed') return { write: null, value: false };
        return { write: { ...marker, phase: 'closing' }, value: true };
      });
      return { ok: value ?? false };
    });
  }

  /** A message arrived while closing: `closing` → `live`, the workflow goes on. */
  static reopen(input: CloseInput): Promise<void> {
    return runJournaledStep('PersistentStep.reopen', async () => {
      const { stateStore } = await runtimeDependencies();
      await updateMarker(stateStore, input.sessionId, (marker) => {
        if (marker?.workflowId !== input.workflowId || marker.phase !== 'closing') return { write: null, value: undefined };
        return { write: { ...marker, phase: 'live' }, value: undefined };
      });
    });
  }

  /** `closing` (or `live`) → `closed` with the reason; messages drained while closing are kept as `deferred`. */
  static endClose(input: CloseInput & { reason: PersistentEndReason; idleDeadlineAt?: number; deferred?: PersistentTurnMessage[] }): Promise<void> {
    return runJournaledStep('PersistentStep.endClose', async () => {
      const { stateStore } = await runtimeDependencies();
      await updateMarker(stateStore, input.sessionId, (marker) => {
        if (marker?.workflowId !== input.workflowId || marker.phase === 'closed') return { write: null, value: undefined };
        const deferred = [...(marker.deferred ?? []), ...(input.deferred ?? [])];
        return {
          write: {
            ...marker,
            phase: 'closed',
            endReason: input.reason,
            ...(input.idleDeadlineAt === undefined ? {} : { idleDeadlineAt: input.idleDeadlineAt }),
            ...(deferred.length === 0 ? {} : { deferred }),
          },
          value: undefined,
        };
      });
    });
  }
}

/**
 * Read-modify-write the session's persistent marker (version-checked, retried on a lost race). One read per attempt:
 * a missing session is `{ value: undefined }` (no separate existence read).
 */
export async function updateMarker<T>(
  stateStore: SessionStateStore,
  sessionId: string,
  change: (marker: PersistentMarker | undefined, state: SessionState) => { write: PersistentMarker | null; value: T; also?: SessionStateWrite },
): Promise<{ value: T | undefined }> {
  const updated = await updateSessionIfExists(stateStore, sessionId, (state) => {
    const decided = change(readPersistentMarker(state.metadata), state);
    const write = decided.write === null ? null : { ...(decided.also ?? {}), metadata: withPersistentMarker(state.metadata, decided.write) };
    return { write, value: decided.value };
  });
  return { value: updated?.value };
}

/**
 * The session was aborted (its marker closed `aborted`, e.g. by the abort cascade of a companion's parent) while this
 * turn opened: the run just recorded is recorded aborted and the session failed, so nothing is left `running`. The
 * marker is read after the run was written, so an abort either sees the run or is seen here.
 */
async function abortedMeanwhile(stateStore: SessionStateStore, input: OpenTurnInput): Promise<boolean> {
  const marker = readPersistentMarker((await stateStore.loadState(input.sessionId))?.metadata);
  if (marker?.phase !== 'closed' || marker.endReason !== 'aborted') return false;
  const error = 'Aborted before the turn started';
  await stateStore.updateRunStatus(input.sessionId, input.runId, 'aborted', { completionReason: 'aborted', endedAt: Date.now(), error });
  await stateStore.updateStatus(input.sessionId, 'failed', { error, failureReason: 'aborted' });
  signalRunChanged(input.runId);
  return true;
}

function needsHeal(status: RunStatus | null | undefined): boolean {
  return status === 'interrupted' || status === 'failed' || status === 'aborted';
}

/**
 * The session `active` again for a turn, with the begin's fields (`also`; a parked step's fields kept when the turn
 * settles it). One write; with an idle-timeout override, a read-modify-write (the override also goes into the marker).
 */
async function activateSession(
  stateStore: SessionStateStore,
  sessionId: string,
  options: { settles: boolean; idleTimeoutMs: number | undefined; also: SessionStateWrite },
): Promise<void> {
  const write: SessionStateWrite = {
    ...options.also,
    status: 'active',
    error: undefined,
    failureReason: undefined,
    interruptContext: undefined,
    ...(options.settles ? {} : { suspendedStepId: undefined, suspendedAwaitingChildren: undefined }),
  };
  const idleTimeoutMs = options.idleTimeoutMs;
  if (idleTimeoutMs === undefined) {
    await stateStore.saveState(sessionId, write);
    return;
  }
  await updateSessionWithRetry(stateStore, sessionId, (state) => ({ write: { ...write, ...idleTimeoutWrite(state, idleTimeoutMs) }, value: undefined }));
}

/** Take the inbox for `input`'s generation (its marker `live`); true when the session moved on (or is gone). */
async function takeInbox(stateStore: SessionStateStore, input: { sessionId: string; workflowId: string }): Promise<boolean> {
  const { value } = await updateMarker(stateStore, input.sessionId, (marker) => {
    if (marker?.workflowId !== input.workflowId || marker.phase === 'closed') return { write: null, value: true };
    return { write: marker.phase === 'live' ? null : { ...marker, phase: 'live' }, value: false };
  });
  return value ?? true;
}

function runScopeOf(input: OpenTurnInput): RunScope {
  const { message: _message, begin: _begin, opensGeneration: _opens, ...scope } = input;
  return scope;
}

/** An idle-timeout override also goes into the marker's start input, so a restart keeps it. */
function idleTimeoutWrite(state: SessionState, idleTimeoutMs: number | undefined): SessionStateWrite {
  const marker = readPersistentMarker(state.metadata);
  if (idleTimeoutMs === undefined || marker?.start === undefined || marker.start.idleTimeoutMs === idleTimeoutMs) return {};
  return { metadata: withPersistentMarker(state.metadata, { ...marker, start: { ...marker.start, idleTimeoutMs } }) };
}

/** `begin` that heals a dangling `__finish__` call first when `heal` (a turn after one that did not finish). */
function healing(begin: BeginRunInput, heal: boolean): BeginRunInput {
  return heal ? { ...begin, healUnpaired: true } : begin;
}

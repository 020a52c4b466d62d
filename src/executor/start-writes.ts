import type { SessionStateStore } from '../store/state-store.js';
import type { StartWriteOptions, StateStoreStepRecords } from '../store/step-records.js';
import type { StreamManagerStepRecords } from '../stream/step-records.js';
import type { StreamManager } from '../stream/stream-manager.js';
import { lendsConnections, sharesDatabase } from '../journal/step-record.js';
import { transactionOnLent } from '../journal/pipelined-transaction.js';
import { InternalError, StaleStateError } from '../errors/index.js';
import type { StepRecordConnection } from '../types/step-records.js';
import type { Message } from '../types/message.js';
import type {
  CompareAndSetOptions,
  CompareAndSetResult,
  CreateRunInput,
  CreateSessionOptions,
  RunRecord,
  SessionStateWrite,
  SessionStatus,
} from '../types/session.js';

/**
 * The writes of a run's start (before its workflow starts): the session created or taken, the stream reactivated, a
 * stale interrupt flag cleared, the run recorded; in one transaction (`together`) also a fresh turn itself (its user
 * message, step count and stream), which its begin then need not write.
 *
 * @example
 * await writer.createRun(sessionId, { runId, status: 'running', stepCount: 0, startSequence, startedAt: Date.now() });
 */
export interface StartWriter {
  createSession(sessionId: string, options: CreateSessionOptions): Promise<void>;
  /**
   * A swap to `active` takes the session for the run: joined, it clears the interrupt flag in the same write (the
   * start's `clearInterruptFlag` of that session then writes nothing). Its answer is exact either way.
   */
  compareAndSetStatus(
    sessionId: string,
    expectedStatuses: readonly SessionStatus[],
    newStatus: SessionStatus,
    options?: CompareAndSetOptions,
  ): Promise<CompareAndSetResult>;
  reactivateStream(streamId: string): Promise<void>;
  clearInterruptFlag(sessionId: string): Promise<void>;
  /** `options`: how this start holds the session (hints the joined writes use; see `StartWriteOptions`). */
  createRun(sessionId: string, run: CreateRunInput, options?: StartWriteOptions): Promise<RunRecord>;
  /** Whether the writes commit together (one transaction): only then may a start store its turn with its run. */
  readonly together: boolean;
  /** The turn's writes (only `together`): its messages, its session write, and its stream created active. */
  appendMessages(sessionId: string, messages: Message[], options?: StartWriteOptions): Promise<void>;
  saveState(sessionId: string, write: SessionStateWrite, options?: Pick<StartWriteOptions, 'sessionLocked'>): Promise<void>;
  openStream(streamId: string, agentType: string): Promise<void>;
}

/**
 * The stores a run's start writes to.
 *
 * @example
 * const stores: StartWriteStores = { stateStore, streamManager };
 */
export interface StartWriteStores {
  stateStore: SessionStateStore;
  streamManager: StreamManager;
}

/**
 * Whether the writes of a run's start commit together (one transaction: the state store and the stream manager
 * declare step records on one database).
 *
 * @example
 * if (await startWritesJoined(config)) await join.start(workflowID, start, transaction);
 */
export async function startWritesJoined(stores: StartWriteStores): Promise<boolean> {
  return (await joinedRecords(stores)) !== undefined;
}

interface Joined {
  state: StateStoreStepRecords;
  stream: StreamManagerStepRecords;
}

/**
 * Run `body`, the writes of a run's start, in one transaction when the state store and the stream manager declare
 * step records on one database (`stepRecords.transaction` and their `…On` methods); otherwise each write on its own,
 * in the same order. The transaction commits when `body` resolves (what a reactivation tells this process's writers
 * takes effect then) and rolls everything back when it throws; it may run `body` again after a transient failure, so
 * `body` only writes through `writer` and reads. Start the run's workflow after this resolves.
 *
 * Joined, a status swap with an expected version is sent ahead (`StartSwapOptions.answerUnread`: a later turn's start
 * is one round trip) and answered `ok`; when it was lost (the transaction failed with StaleStateError) `body` runs
 * once more in a new transaction whose swaps are read, so it learns the answer as a separate start would.
 *
 * @example
 * const input = await withStartWrites(config, (writer) => launcher.recordRun(writer, planned));
 */
export async function withStartWrites<T>(
  stores: StartWriteStores,
  body: (writer: StartWriter) => Promise<T>,
  workflowStart?: WorkflowStartInit,
): Promise<T> {
  const joined = await joinedRecords(stores);
  if (joined === undefined) {
    if (workflowStart !== undefined) throw new InternalError('A workflow start joins only a start whose writes commit together.');
    return body(separateWriter(stores));
  }
  const ahead: Attempt = { readsSwaps: false, swapsUnread: false, committed: [], workflowStart };
  try {
    return await joinedStart(joined, body, ahead);
  } catch (error) {
    if (!ahead.swapsUnread || !StaleStateError.isInstance(error)) throw error;
    return joinedStart(joined, body, { readsSwaps: true, swapsUnread: false, committed: [], workflowStart });
  }
}

/**
 * DBOS's record of the run's workflow start, run on the start transaction's connection after `body` resolved with a
 * value (not after a refusal, `undefined`): the workflow's start commits with the run's (see `WorkflowStartJoin`).
 *
 * @example
 * await withStartWrites(stores, body, (connection) => init(connection));
 */
export type WorkflowStartInit = (connection: StepRecordConnection) => Promise<void>;

/** One run of a joined start: whether its swaps are read, whether one was sent unread, what to tell once committed. */
interface Attempt {
  readsSwaps: boolean;
  swapsUnread: boolean;
  committed: Array<() => void>;
  workflowStart?: WorkflowStartInit | undefined;
}

async function joinedStart<T>(joined: Joined, body: (writer: StartWriter) => Promise<T>, attempt: Attempt): Promise<T> {
  const value = await inOneTransaction(joined.state, async (connection) => {
    attempt.committed = []; // what this attempt tells once it committed (an attempt retried whole starts again)
    const written = await body(joinedWriter(joined, connection, attempt));
    if (written !== undefined) await attempt.workflowStart?.(connection);
    return written;
  });
  for (const done of attempt.committed) done();
  return value;
}

/**
 * `body` in one transaction on the store's database: a pipelined one on a connection the store lends (see
 * `transactionOnLent`: a new session's start is one round trip), else the store's own.
 */
async function inOneTransaction<T>(state: StateStoreStepRecords, body: (connection: StepRecordConnection) => Promise<T>): Promise<T> {
  return lendsConnections(state) ? transactionOnLent(state, body) : state.transaction(body);
}

async function joinedRecords({ stateStore, streamManager }: StartWriteStores): Promise<Joined | undefined> {
  const state = stateStore.stepRecords;
  const stream = streamManager.stepRecords;
  if (state === undefined || stream === undefined) return undefined;
  return (await sharesDatabase(stream, state)) ? { state, stream } : undefined;
}

function separateWriter({ stateStore, streamManager }: StartWriteStores): StartWriter {
  return {
    createSession: async (sessionId, options) => {
      await stateStore.createSession(sessionId, options);
    },
    compareAndSetStatus: (sessionId, expected, status, options) => stateStore.compareAndSetStatus(sessionId, expected, status, options),
    reactivateStream: (streamId) => streamManager.reactivateStream(streamId),
    clearInterruptFlag: (sessionId) => stateStore.clearInterruptFlag(sessionId),
    createRun: (sessionId, run) => stateStore.createRun(sessionId, run),
    // A start whose writes are apart leaves the turn to its begin (`RunLauncher.recordRun` stores it only `together`).
    together: false,
    appendMessages: storedOnlyTogether,
    saveState: storedOnlyTogether,
    openStream: storedOnlyTogether,
  };
}

async function storedOnlyTogether(): Promise<never> {
  throw new InternalError('A start whose writes are apart leaves the turn (message, step count, stream) to its begin.');
}

function joinedWriter({ state, stream }: Joined, connection: StepRecordConnection, attempt: Attempt): StartWriter {
  const taken = new Set<string>(); // sessions this transaction took (a swap to active), their flag cleared with it
  return {
    createSession: async (sessionId, options) => {
      await state.createSessionOn(connection, sessionId, options);
    },
    compareAndSetStatus: async (sessionId, expected, status, options) => {
      const takes = status === 'active';
      const answerUnread = !attempt.readsSwaps && options?.expectedVersion !== undefined;
      attempt.swapsUnread ||= answerUnread;
      const swapped = await state.compareAndSetStatusOn(connection, sessionId, expected, status, options, { clearsInterrupt: takes, answerUnread });
      if (swapped.ok && takes) taken.add(sessionId);
      return swapped;
    },
    reactivateStream: async (streamId) => {
      const reactivated = await stream.reactivateStreamOn(connection, streamId);
      attempt.committed.push(() => reactivated.onCommitted());
    },
    clearInterruptFlag: async (sessionId) => {
      if (!taken.has(sessionId)) await state.clearInterruptFlagOn(connection, sessionId);
    },
    createRun: (sessionId, run, options) => state.createRunOn(connection, sessionId, run, options),
    together: true,
    appendMessages: async (sessionId, messages, options) => {
      await state.appendMessagesOn(connection, sessionId, messages, options);
    },
    saveState: async (sessionId, write, options) => {
      await state.saveStateOn(connection, sessionId, write, options);
    },
    openStream: (streamId, agentType) => stream.openStreamOn(connection, streamId, agentType),
  };
}

/**
 * The hints a run's start gives its joined writes (see `StartWriteOptions`): how it holds the session, the run's turn
 * after `previous` (the session's latest run, as read before the writes), and that it does not read the message total.
 *
 * @example
 * await writer.createRun(sessionId, run, startWriteOptions(planned.previous, { sessionLocked: true }));
 */
export function startWriteOptions(
  previous: Pick<RunRecord, 'turn'> | null,
  held: { sessionCreated?: boolean; sessionLocked?: boolean },
): StartWriteOptions {
  return {
    sessionCreatedHere: held.sessionCreated === true,
    sessionLocked: held.sessionLocked === true,
    expectedTurn: (previous?.turn ?? 0) + 1,
    totalUnread: true,
  };
}

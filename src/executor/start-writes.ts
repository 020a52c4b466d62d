import type { SessionStateStore } from '../store/state-store.js';
import type { StartWriteOptions, StateStoreStepRecords } from '../store/step-records.js';
import type { StreamManagerStepRecords } from '../stream/step-records.js';
import type { StreamManager } from '../stream/stream-manager.js';
import { lendsConnections, sharesDatabase } from '../journal/step-record.js';
import { transactionOnLent } from '../journal/pipelined-transaction.js';
import { InternalError } from '../errors/index.js';
import { canSendAhead, type SendAheadConnection } from '../database/send-ahead.js';
import { transientPostgresCondition } from '../database/transient-postgres-error.js';
import type { QueryResult, QueryResultRow } from 'pg';
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
  saveState(sessionId: string, write: SessionStateWrite): Promise<void>;
  openStream(streamId: string, agentType: string): Promise<void>;
}

interface Stores {
  stateStore: SessionStateStore;
  streamManager: StreamManager;
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
 * @example
 * const input = await withStartWrites(config, (writer) => launcher.recordRun(writer, planned));
 */
export async function withStartWrites<T>(stores: Stores, body: (writer: StartWriter) => Promise<T>): Promise<T> {
  const joined = await joinedRecords(stores);
  if (joined === undefined) return body(separateWriter(stores));
  let attempt: Attempt = { committed: [], pending: [] };
  let value: T;
  try {
    value = await inOneTransaction(joined.state, async (connection) => {
      attempt = { committed: [], pending: [] };
      const [written] = await Promise.allSettled([body(joinedWriter(joined, connection, attempt))]);
      // A reactivation sent ahead fails the start before its COMMIT; its failure is the start's (it was written first).
      await Promise.all(attempt.pending);
      if (written.status === 'rejected') throw written.reason;
      return written.value;
    });
  } catch (error) {
    throw (await reactivationFailure(attempt, error)) ?? error;
  }
  for (const done of attempt.committed) done();
  return value;
}

/** What one attempt of a joined start leaves: what to tell once it committed, reactivations not yet answered. */
interface Attempt {
  committed: Array<() => void>;
  pending: Array<Promise<void>>;
}

/**
 * The failure of `attempt`'s reactivation, when it failed and the start did not fail transiently (retried whole, or
 * the budget's error): the start's first failure, which a pipelined transaction reports as the statement's own error.
 */
async function reactivationFailure(attempt: Attempt, error: unknown): Promise<unknown> {
  if (transientPostgresCondition(error) !== undefined) return undefined;
  const settled = await Promise.allSettled(attempt.pending);
  return settled.find((answer): answer is PromiseRejectedResult => answer.status === 'rejected')?.reason;
}

/**
 * `body` in one transaction on the store's database: a pipelined one on a connection the store lends (see
 * `transactionOnLent`: a new session's start is one round trip), else the store's own.
 */
async function inOneTransaction<T>(state: StateStoreStepRecords, body: (connection: StepRecordConnection) => Promise<T>): Promise<T> {
  return lendsConnections(state) ? transactionOnLent(state, body) : state.transaction(body);
}

async function joinedRecords({ stateStore, streamManager }: Stores): Promise<Joined | undefined> {
  const state = stateStore.stepRecords;
  const stream = streamManager.stepRecords;
  if (state === undefined || stream === undefined) return undefined;
  return (await sharesDatabase(stream, state)) ? { state, stream } : undefined;
}

function separateWriter({ stateStore, streamManager }: Stores): StartWriter {
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
  return {
    createSession: async (sessionId, options) => {
      await state.createSessionOn(connection, sessionId, options);
    },
    compareAndSetStatus: (sessionId, expected, status, options) => state.compareAndSetStatusOn(connection, sessionId, expected, status, options),
    reactivateStream: async (streamId) => {
      // Pipelined, the reactivation goes out with the start's next statements: its answer is awaited before the COMMIT.
      const reactivation = stream
        .reactivateStreamOn(canSendAhead(connection) ? answeredLater(connection) : connection, streamId)
        .then((reactivated) => void attempt.committed.push(() => reactivated.onCommitted()));
      if (!canSendAhead(connection)) return reactivation;
      reactivation.catch(() => undefined); // awaited before the transaction ends; never unhandled meanwhile
      attempt.pending.push(reactivation);
    },
    clearInterruptFlag: (sessionId) => state.clearInterruptFlagOn(connection, sessionId),
    createRun: (sessionId, run, options) => state.createRunOn(connection, sessionId, run, options),
    together: true,
    appendMessages: async (sessionId, messages, options) => {
      await state.appendMessagesOn(connection, sessionId, messages, options);
    },
    saveState: async (sessionId, write) => {
      await state.saveStateOn(connection, sessionId, write);
    },
    openStream: (streamId, agentType) => stream.openStreamOn(connection, streamId, agentType),
  };
}

/**
 * `connection` for a statement whose answer the start reads only before its COMMIT: sent ahead (it goes out with the
 * next statement that is read; its failure, in its place, is the transaction's), answered when its answer comes.
 */
function answeredLater(connection: SendAheadConnection): StepRecordConnection {
  return {
    query: <R extends QueryResultRow>(text: string, values: unknown[] = []) =>
      new Promise<QueryResult<R>>((resolve, reject) => {
        const answered = (result: QueryResult<QueryResultRow>): void => resolve(result as QueryResult<R>);
        const failed = (error: unknown): unknown => {
          // The driver's error as it is, as the statement's own query would reject with it.
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
          reject(error);
          return error;
        };
        connection.sendAhead(text, values, answered, failed).catch(reject);
      }),
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

import type { Message } from '../types/message.js';
import type {
  CheckpointMeta,
  CompareAndSetOptions,
  CompareAndSetResult,
  CreateRunInput,
  CreateSessionOptions,
  RunRecord,
  RunStatus,
  SaveAndPromoteOptions,
  SessionState,
  SessionStateWrite,
  SessionStatus,
} from '../types/session.js';
import type { RunPatch } from './record-updates.js';
import type { StepCommitReport } from '../types/step-commit-report.js';
import type { StepRecordClient, StepRecordConnection, StepRecordOutcome, StepRecordParticipant } from '../types/step-records.js';

/**
 * What `commitStepOn` wrote on the caller's connection (visible once that transaction commits).
 *
 * @example
 * const { report, onCommitted } = await store.stepRecords.commitStepOn(client, 's1', { stepCount: 2 }, messages, meta);
 */
export interface StepCommitOnConnection {
  newVersion: number;
  checkpointId: string;
  /** The session after the commit, as `saveStateAndPromoteStaging`'s report. */
  report: StepCommitReport;
  /** Call once the caller's transaction committed (the store may remember what it wrote); never after a rollback. */
  onCommitted?: (outcome: StepRecordOutcome) => void;
}

/**
 * How a `…On` write of a run's start may take its session. `sessionCreatedHere`: the caller's transaction created it
 * (`createSessionOn`), so it has no run or message yet and the transaction holds its row — the write needs no lock, no
 * turn lookup and no existing-id lookup. `sessionLocked`: the caller's transaction holds its row (a successful
 * `compareAndSetStatusOn`), so the write needs no lock of its own. With `sessionLocked`, two hints let a store write
 * without reading first (a store that lends connections is checked to send both writes ahead, `startHintChecks`; another
 * may ignore them: its run then takes the session's next turn, its append answers the total, as without them):
 * - `expectedTurn` (`createRunOn`): the turn the caller expects the run to get (the session's latest run's turn + 1;
 *   1 without one). A store may then insert it without a turn lookup; when the session's next turn is another (the
 *   caller's read is stale) or the run id is taken at another turn, it fails the transaction with InvalidArgumentError
 *   `INVALID_ARGUMENT` (`data.field` `'expectedTurn'`) instead of numbering the run itself; a run stored under its id at
 *   that turn is left as it is.
 * - `totalUnread` (`appendMessagesOn`): the caller does not read the returned total. A store may then append without a
 *   lookup, numbering the messages in SQL, and resolve with `NaN`; an unknown session still fails the transaction
 *   with SessionNotFoundError `SESSION_NOT_FOUND`.
 *
 * @example
 * await stepRecords.createRunOn(connection, sessionId, run, { sessionCreatedHere: true });
 * await stepRecords.createRunOn(connection, sessionId, run, { sessionLocked: true, expectedTurn: previous.turn + 1 });
 */
export interface StartWriteOptions {
  sessionCreatedHere?: boolean;
  sessionLocked?: boolean;
  expectedTurn?: number;
  totalUnread?: boolean;
}

/**
 * What a run's start folds into its status swap (`compareAndSetStatusOn`), besides `CompareAndSetOptions`:
 * - `clearsInterrupt`: the swap clears the interrupt flag in the same write (a start taking its session: a flag no
 *   run observed must not stop the new one), so the start needs no `clearInterruptFlagOn`.
 * - `answerUnread` (with `expectedVersion`): the caller reads no answer before its transaction ends. A store may then
 *   send the swap ahead (a store that lends connections is checked to, `startHintChecks`) and resolve
 *   `{ ok: true, newVersion: expectedVersion + 1 }`; a lost swap (another status or version) then fails the
 *   transaction with StaleStateError `STALE_STATE`, and the caller runs it again without the hint to learn the answer.
 *
 * @example
 * await stepRecords.compareAndSetStatusOn(connection, sessionId, ['completed'], 'active', { expectedVersion: 4 }, { clearsInterrupt: true });
 */
export interface StartSwapOptions {
  clearsInterrupt?: boolean;
  answerUnread?: boolean;
}

/**
 * What a `SessionStateStore` offers the fused journal when it can write inside a step record's transaction
 * (`SessionStateStore.stepRecords`; `PostgresStateStore` has it, the in-memory store does not). Ids are checked like
 * the store's own methods (InvalidArgumentError `INVALID_ARGUMENT` before the connection is used). Proven by
 * `describeStepRecordsContract` (`helix-agents-dbos/testing/contracts`).
 *
 * @example
 * const joins = store.stepRecords !== undefined && (await store.stepRecords.databaseFingerprint()) === systemFingerprint;
 */
export interface StateStoreStepRecords extends StepRecordParticipant {
  /** The schema of the store's tables: a stream manager with the same schema keeps its chunks beside the checkpoints. */
  schema(): string;
  /**
   * `loadState` for a step that commits next (it may prime that commit, so the commit needs no locked read). Returns
   * what `loadState` returns.
   */
  loadStateForStep(sessionId: string): Promise<SessionState | null>;
  /**
   * Optional: `loadState` and `getCurrentRun` in one read (one snapshot: the run is the session's latest as of the
   * version read), for a run's start, which plans from both. Both null for no session. Without it the executor reads
   * the run after the session.
   */
  loadStateForStart?(sessionId: string): Promise<{ state: SessionState | null; run: RunRecord | null }>;
  /**
   * `saveStateAndPromoteStaging` on `connection`, inside the caller's transaction on the store's database: the same
   * writes, the same errors, idempotent by checkpoint id; nothing is visible before the caller commits, nothing
   * remains after it rolls back.
   */
  commitStepOn(
    connection: StepRecordConnection,
    sessionId: string,
    state: SessionStateWrite,
    appendMessages: Message[],
    checkpointMeta: CheckpointMeta,
    options?: SaveAndPromoteOptions,
  ): Promise<StepCommitOnConnection>;
  /**
   * `saveState` on `connection`, inside the caller's transaction on the store's database: the same write and errors;
   * nothing is visible before the caller commits, nothing remains after it rolls back. With `sessionLocked` (the
   * transaction holds the row) a write of `stepCount` and `customState` alone needs no read: a store that lends
   * connections is checked to send it ahead (`startHintChecks`: it then resolves with `newVersion` NaN); an unknown
   * session then fails the transaction with SessionNotFoundError `SESSION_NOT_FOUND`.
   */
  saveStateOn(
    connection: StepRecordConnection,
    sessionId: string,
    write: SessionStateWrite,
    options?: Pick<StartWriteOptions, 'sessionLocked'>,
  ): Promise<{ newVersion: number }>;
  /**
   * `appendMessages` on `connection`, inside the caller's transaction (as {@link saveStateOn}): idempotent by id
   * (with `sessionCreatedHere`, of a session without messages: appended from sequence 1 without a lookup).
   */
  appendMessagesOn(connection: StepRecordConnection, sessionId: string, messages: Message[], options?: StartWriteOptions): Promise<number>;
  /** `updateRunStatus` on `connection`, inside the caller's transaction (as {@link saveStateOn}). */
  updateRunStatusOn(connection: StepRecordConnection, sessionId: string, runId: string, status: RunStatus, patch?: RunPatch): Promise<void>;
  /**
   * Run `body` in one transaction of its own on the store's database (the writes of a run's start: components on the
   * same database write there through their `…On` methods). Committed when `body` resolves, rolled back when it
   * throws; retried whole through transient failures, like the store's own transactions.
   */
  transaction<T>(body: (connection: StepRecordConnection) => Promise<T>): Promise<T>;
  /**
   * Optional: run `body` on one connection of the store's pool, outside any transaction (the body runs one of its own
   * and leaves none open), retried whole through transient failures like the store's own writes. With it the public
   * journal commits a step's deferred writes on this database in one pipelined transaction (see
   * `StepRecordConnections`); without it they write on their own.
   */
  withConnection?<T>(body: (client: StepRecordClient) => Promise<T>): Promise<T>;
  /** `createSession` inside the caller's transaction (as {@link saveStateOn}); SessionAlreadyExistsError as it. */
  createSessionOn(connection: StepRecordConnection, sessionId: string, options: CreateSessionOptions): Promise<SessionState>;
  /** `compareAndSetStatus` inside the caller's transaction (as {@link saveStateOn}); `start`: see `StartSwapOptions`. */
  compareAndSetStatusOn(
    connection: StepRecordConnection,
    sessionId: string,
    expectedStatuses: readonly SessionStatus[],
    newStatus: SessionStatus,
    options?: CompareAndSetOptions,
    start?: StartSwapOptions,
  ): Promise<CompareAndSetResult>;
  /** `clearInterruptFlag` inside the caller's transaction (as {@link saveStateOn}). */
  clearInterruptFlagOn(connection: StepRecordConnection, sessionId: string): Promise<void>;
  /**
   * `createRun` inside the caller's transaction (as {@link saveStateOn}): idempotent by run id (with
   * `sessionCreatedHere`, the session's first run: turn 1, inserted without a lookup).
   */
  createRunOn(connection: StepRecordConnection, sessionId: string, run: CreateRunInput, options?: StartWriteOptions): Promise<RunRecord>;
}

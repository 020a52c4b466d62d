import { databaseFingerprint } from '../../database/database-fingerprint.js';
import type { Message } from '../../types/message.js';
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
} from '../../types/session.js';
import type { RunPatch } from '../record-updates.js';
import type { StepRecordClient, StepRecordConnection } from '../../types/step-records.js';
import { guardStateStoreStepRecordArguments } from '../state-store-arguments.js';
import type { StartSwapOptions, StartWriteOptions, StateStoreStepRecords, StepCommitOnConnection } from '../step-records.js';
import { commitPostgresStepOn } from './commit.js';
import type { CommitCache } from './commit-cache.js';
import { connectionDatabase, type PostgresContext } from './database.js';
import { appendPostgresMessages } from './messages.js';
import { clearPostgresInterruptFlag } from './interrupt-flag.js';
import { createPostgresRun, updatePostgresRunStatus } from './runs.js';
import { createPostgresSession, loadPostgresStateWithRun } from './sessions.js';
import { compareAndSetPostgresStatus, saveLockedPostgresState, savePostgresState } from './state.js';
import { primeStepCommit } from './prime-step-commit.js';

/**
 * `PostgresStateStore.stepRecords`: the store's step commit on a step record's connection, the read that primes it,
 * and the database and schema the store writes to. Shares the store's commit cache (what this process's commits left
 * each session), so a commit on a record's connection and the store's own writes see the same entries.
 *
 * @example
 * const stepRecords = new PostgresStateStoreStepRecords(context, commits);
 * await stepRecords.commitStepOn(client, 's1', { stepCount: 2 }, messages, { checkpointId: 'r1:2', runId: 'r1', stepCount: 2 });
 */
export class PostgresStateStoreStepRecords implements StateStoreStepRecords {
  readonly #context: PostgresContext;
  readonly #commits: CommitCache;

  constructor(context: PostgresContext, commits: CommitCache) {
    this.#context = context;
    this.#commits = commits;
  }

  /** The schema of the store's tables. */
  schema(): string {
    return this.#context.tables.schema;
  }

  /** Names the database the store writes to (see `databaseFingerprint`). */
  async databaseFingerprint(): Promise<string> {
    return this.#context.database.run('name the database', (connection) => databaseFingerprint(connection));
  }

  /** `loadState` that primes the session's next step commit (see `primeStepCommit`). */
  async loadStateForStep(sessionId: string): Promise<SessionState | null> {
    return primeStepCommit(this.#context, sessionId, this.#commits);
  }

  /** `loadState` and `getCurrentRun` in one statement (see `loadPostgresStateWithRun`). */
  async loadStateForStart(sessionId: string): Promise<{ state: SessionState | null; run: RunRecord | null }> {
    return loadPostgresStateWithRun(this.#context, sessionId);
  }

  /** `saveStateAndPromoteStaging` inside the caller's transaction (see `commitPostgresStepOn`). */
  async commitStepOn(
    connection: StepRecordConnection,
    sessionId: string,
    state: SessionStateWrite,
    appendMessages: Message[],
    checkpointMeta: CheckpointMeta,
    options?: SaveAndPromoteOptions,
  ): Promise<StepCommitOnConnection> {
    return commitPostgresStepOn(connection, this.#context.tables, sessionId, state, appendMessages, checkpointMeta, options, this.#commits);
  }

  /** `saveState` inside the caller's transaction (a start's step count and state, on a row it holds: without a read). */
  async saveStateOn(
    connection: StepRecordConnection,
    sessionId: string,
    write: SessionStateWrite,
    options?: Pick<StartWriteOptions, 'sessionLocked'>,
  ): Promise<{ newVersion: number }> {
    this.#commits.take(sessionId); // the row changes: what the last step commit left is no use
    const context = this.#on(connection);
    const locked = options?.sessionLocked === true ? await saveLockedPostgresState(context, sessionId, write) : undefined;
    return locked ?? savePostgresState(context, sessionId, write);
  }

  /** `appendMessages` inside the caller's transaction. */
  async appendMessagesOn(connection: StepRecordConnection, sessionId: string, messages: Message[], options?: StartWriteOptions): Promise<number> {
    return appendPostgresMessages(this.#on(connection), sessionId, messages, options);
  }

  /** `updateRunStatus` inside the caller's transaction. */
  async updateRunStatusOn(connection: StepRecordConnection, sessionId: string, runId: string, status: RunStatus, patch?: RunPatch): Promise<void> {
    await updatePostgresRunStatus(this.#on(connection), sessionId, runId, status, patch);
  }

  /** One transaction on the store's pool (retried whole through transient failures). */
  async transaction<T>(body: (connection: StepRecordConnection) => Promise<T>): Promise<T> {
    return this.#context.database.transaction('start a run', (connection) => body(connection));
  }

  /** One connection of the store's pool for a transaction the caller runs (retried whole through transient failures). */
  async withConnection<T>(body: (client: StepRecordClient) => Promise<T>): Promise<T> {
    // The pool's connections are node-postgres clients (the store's statements go straight to them): they take named statements.
    return this.#context.database.run('commit a step record', (connection) => body(connection), { raw: true });
  }

  /** `createSession` inside the caller's transaction. */
  async createSessionOn(connection: StepRecordConnection, sessionId: string, options: CreateSessionOptions): Promise<SessionState> {
    return createPostgresSession(this.#on(connection), sessionId, options);
  }

  /** `compareAndSetStatus` inside the caller's transaction. */
  async compareAndSetStatusOn(
    connection: StepRecordConnection,
    sessionId: string,
    expectedStatuses: readonly SessionStatus[],
    newStatus: SessionStatus,
    options?: CompareAndSetOptions,
    start?: StartSwapOptions,
  ): Promise<CompareAndSetResult> {
    this.#commits.take(sessionId);
    return compareAndSetPostgresStatus(this.#on(connection), sessionId, expectedStatuses, newStatus, options, start);
  }

  /** `clearInterruptFlag` inside the caller's transaction. */
  async clearInterruptFlagOn(connection: StepRecordConnection, sessionId: string): Promise<void> {
    await clearPostgresInterruptFlag(this.#on(connection), sessionId);
  }

  /** `createRun` inside the caller's transaction. */
  async createRunOn(connection: StepRecordConnection, sessionId: string, run: CreateRunInput, options?: StartWriteOptions): Promise<RunRecord> {
    return createPostgresRun(this.#on(connection), sessionId, run, options);
  }

  #on(connection: StepRecordConnection): PostgresContext {
    return { database: connectionDatabase(connection), tables: this.#context.tables };
  }
}

guardStateStoreStepRecordArguments(PostgresStateStoreStepRecords);

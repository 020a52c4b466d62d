import type { Knex } from 'knex';
import { transientPostgresCondition } from '../../database/transient-postgres-error.js';
import { resolveTransientRetry, retryTransient, type TransientRetryPolicy } from '../../database/transient-retry.js';
import type { Logger } from '../../hooks/types.js';
import type { JsonPatchOperation } from '../../types/json-patch.js';
import type { Message } from '../../types/message.js';
import type {
  Checkpoint,
  CheckpointMeta,
  CompareAndSetOptions,
  CompareAndSetResult,
  CreateRunInput,
  CreateSessionOptions,
  GetMessagesOptions,
  GetMessagesResult,
  InterruptFlagResult,
  RunRecord,
  RunStatus,
  SaveAndPromoteOptions,
  SessionState,
  SessionStateWrite,
  SessionStatus,
  StagedChanges,
  SubSessionRef,
} from '../../types/session.js';
import type { StepCommitReport } from '../../types/step-commit-report.js';
import type { RunPatch, SubSessionRefPatch } from '../record-updates.js';
import type { StatusContext } from '../session-write.js';
import type { SessionStateStore } from '../state-store.js';
import type { StateStoreStepRecords } from '../step-records.js';
import { finishedLimit } from '../validation.js';
import { guardStateStoreArguments } from '../state-store-arguments.js';
import * as checkpoints from './checkpoints.js';
import { commitPostgresStep } from './commit.js';
import { CommitCache } from './commit-cache.js';
import { Database, type PostgresContext } from './database.js';
import * as interrupt from './interrupt-flag.js';
import * as messages from './messages.js';
import { runMigrations } from './migrate.js';
import { PostgresStateStoreStepRecords } from './postgres-step-records.js';
import * as runs from './runs.js';
import * as sessions from './sessions.js';
import * as staging from './staging.js';
import * as state from './state.js';
import * as subSessions from './sub-sessions.js';
import { storeTables } from './tables.js';
import { POSTGRES_STORE_ARGUMENTS } from './store-arguments.js';
import { resolveSessionListQuery, type SessionListPage, type SessionListQuery } from '../session-listing.js';
import { listPostgresSessions } from './session-list.js';
import { openStoreKnex, type PostgresStateStoreConnection, type PostgresStateStoreOptions } from './store-options.js';

export type { PostgresStateStoreConnection, PostgresStateStoreOptions } from './store-options.js';

/**
 * The production `SessionStateStore`: knex 3 + pg on the `__agents_*` tables of `schema/`. Every method
 * is one statement or one transaction with a constant number of statements whatever the history length;
 * message rows are written once. Call `migrate()` once before use.
 *
 * Transient errors are waited out (see `retry`) and every method is safe to retry after an ambiguous
 * failure (connection lost during COMMIT): reads, deletes, upserts and field writes are idempotent; the
 * step commit and `createCheckpoint` are idempotent by checkpoint id, `createRun` by run id, message appends
 * by message id (assigned before the first attempt); `createSession`/`cloneSession`, `compareAndSetStatus`,
 * the counters, `checkInterruptFlag` and the read-modify-write state methods recognise their own earlier
 * write (by the write time or a token fixed before the first attempt) instead of applying it twice or
 * reporting it as a conflict. `cleanupOrphanedStaging` may count 0 on a retry of a delete that landed.
 *
 * Checkpoints are stored as deltas with geometrically spaced snapshots (migration 006), so storage stays
 * O(steps) even when customState grows every step. A checkpoint row holds either a full snapshot or the
 * RFC 6902 operations its step applied, on a base: the checkpoint the session pointed at, used only when
 * the session's customState still equals it (the row leaves its state to it, or equals it). Policy: a snapshot for
 * the first checkpoint, after any change that was not the step's patches (saveState/rewind of customState,
 * a commit whose write replaces customState, a row from before 006), and once the chain since the last
 * snapshot (patch bytes + 128 bytes per row) would reach twice the state's size; otherwise a delta. So a snapshot
 * of the size rule costs at most half what the deltas before it did, and reading any checkpoint reads one
 * snapshot plus less than twice the state's size of deltas (one recursive query, replayed in JS). A branch's
 * first checkpoint is a snapshot of the rebuilt state.
 *
 * Ids are checked before any SQL runs, with the rules of every store (`guardStateStoreArguments`; the members of
 * `stepRecords`, which commit a step inside a caller's transaction for the fused journal, by the same rules).
 *
 * @throws SessionAlreadyExistsError, SessionNotFoundError, StaleStateError, InvalidArgumentError, and
 *   StoreError (code STORE_ERROR) for driver failures — `retryable: true` with `data.condition` (e.g.
 *   `57P01`) when transient failures outlasted the budget; messages never carry SQL parameters.
 * @example
 * const store = new PostgresStateStore({ connectionString: process.env.DATABASE_URL! }, { schema: 'helix' });
 * await store.migrate();
 * await store.createSession('s1', { agentType: 'assistant' });
 */
export class PostgresStateStore implements SessionStateStore {
  private readonly knex: Knex;
  private readonly ownsKnex: boolean;
  private readonly context: PostgresContext;
  private readonly logger: Logger | undefined;
  private readonly retry: TransientRetryPolicy;
  /** What this process's step commits left each session as (see `commitPostgresStepOn`). */
  readonly #commits = new CommitCache();
  private closed = false;
  /** The step commit inside a step record's transaction, and what the fused journal asks before it (see `SessionStateStore.stepRecords`). */
  readonly stepRecords: StateStoreStepRecords;

  constructor(connection: PostgresStateStoreConnection, options: PostgresStateStoreOptions = {}) {
    const opened = openStoreKnex(connection);
    this.knex = opened.knex;
    this.ownsKnex = opened.ownsKnex;
    this.logger = options.logger;
    this.retry = resolveTransientRetry(options.retry);
    this.context = {
      database: new Database(this.knex, options.logger, this.retry),
      tables: storeTables(options.schema ?? 'public'),
    };
    this.stepRecords = new PostgresStateStoreStepRecords(this.context, this.#commits);
  }

  /** Apply pending migrations from the package's `schema/` folder (idempotent, safe to run concurrently). */
  async migrate(): Promise<{ applied: string[] }> {
    // One transaction under an advisory lock, recorded per file: a retry after any failure is safe.
    return retryTransient(
      'migrate the store',
      () => runMigrations(this.knex, this.context.tables.schema, this.logger === undefined ? {} : { logger: this.logger }),
      { policy: this.retry, classify: transientPostgresCondition, logger: this.logger },
    );
  }

  async createSession<TState = Record<string, unknown>>(sessionId: string, options: CreateSessionOptions<TState>): Promise<SessionState<TState>> {
    return sessions.createPostgresSession(this.context, sessionId, options);
  }
  async sessionExists(sessionId: string): Promise<boolean> {
    return sessions.postgresSessionExists(this.context, sessionId);
  }
  async deleteSession(sessionId: string): Promise<void> {
    this.#commits.take(sessionId);
    await sessions.deletePostgresSession(this.context, sessionId);
  }
  async listFinishedSessions(finishedBefore: number, options?: { limit?: number }): Promise<Array<{ sessionId: string; streamId: string }>> {
    return sessions.listPostgresFinishedSessions(this.context, finishedBefore, finishedLimit(options?.limit));
  }
  async listSessions(query?: SessionListQuery): Promise<SessionListPage> {
    return listPostgresSessions(this.context, resolveSessionListQuery(query));
  }
  async countSessionsAwaitingHumans(): Promise<number> {
    return sessions.countPostgresSessionsAwaitingHumans(this.context);
  }
  async cloneSession(sourceSessionId: string, targetSessionId: string, options?: { checkpointId?: string; agentType?: string }): Promise<SessionState> {
    return sessions.clonePostgresSession(this.context, sourceSessionId, targetSessionId, options);
  }

  async loadState<TState = Record<string, unknown>, TOutput = unknown>(sessionId: string): Promise<SessionState<TState, TOutput> | null> {
    return sessions.loadPostgresState<TState, TOutput>(this.context, sessionId);
  }
  async saveState(sessionId: string, write: SessionStateWrite, options?: { expectedVersion?: number }): Promise<{ newVersion: number }> {
    this.#commits.take(sessionId); // the row changes: what the last step commit left is no use (a finish, a park) — memory only
    return state.savePostgresState(this.context, sessionId, write, options);
  }
  async mergeCustomState(sessionId: string, patches: JsonPatchOperation[]): Promise<{ newVersion: number }> {
    return state.mergePostgresCustomState(this.context, sessionId, patches);
  }
  async updateStatus(sessionId: string, status: SessionStatus, context?: StatusContext): Promise<void> {
    this.#commits.take(sessionId);
    await state.updatePostgresStatus(this.context, sessionId, status, context);
  }
  async compareAndSetStatus(
    sessionId: string,
    expectedStatuses: readonly SessionStatus[],
    newStatus: SessionStatus,
    options?: CompareAndSetOptions,
  ): Promise<CompareAndSetResult> {
    return state.compareAndSetPostgresStatus(this.context, sessionId, expectedStatuses, newStatus, options);
  }
  async saveStateAndPromoteStaging(
    sessionId: string,
    write: SessionStateWrite,
    appendMessages: Message[],
    checkpointMeta: CheckpointMeta,
    options?: SaveAndPromoteOptions,
  ): Promise<{ newVersion: number; checkpointId: string; report?: StepCommitReport }> {
    return commitPostgresStep(this.context, sessionId, write, appendMessages, checkpointMeta, options, this.#commits);
  }
  async incrementStepCount(sessionId: string): Promise<number> {
    return state.incrementPostgresCounter(this.context, sessionId, 'step_count');
  }
  async incrementResumeCount(sessionId: string): Promise<number> {
    return state.incrementPostgresCounter(this.context, sessionId, 'resume_count');
  }
  async patchMetadata(sessionId: string, patch: Record<string, string | null>): Promise<void> {
    await state.patchPostgresMetadata(this.context, sessionId, patch);
  }

  async setInterruptFlag(sessionId: string, reason?: string): Promise<void> {
    await interrupt.setPostgresInterruptFlag(this.context, sessionId, reason);
  }
  async checkInterruptFlag(sessionId: string): Promise<InterruptFlagResult> {
    return interrupt.checkPostgresInterruptFlag(this.context, sessionId);
  }
  async clearInterruptFlag(sessionId: string): Promise<void> {
    await interrupt.clearPostgresInterruptFlag(this.context, sessionId);
  }
  async isInterruptRequested(sessionId: string): Promise<boolean> {
    return interrupt.isPostgresInterruptRequested(this.context, sessionId);
  }
  async readInterruptFlag(sessionId: string): Promise<InterruptFlagResult> {
    return interrupt.readPostgresInterruptFlag(this.context, sessionId);
  }

  async appendMessages(sessionId: string, toAppend: Message[]): Promise<number> {
    return messages.appendPostgresMessages(this.context, sessionId, toAppend);
  }
  async getMessages(sessionId: string, options?: GetMessagesOptions): Promise<GetMessagesResult> {
    return messages.getPostgresMessages(this.context, sessionId, options);
  }
  async getMessageCount(sessionId: string): Promise<number> {
    return messages.getPostgresMessageCount(this.context, sessionId);
  }
  async truncateMessages(sessionId: string, count: number): Promise<void> {
    await messages.truncatePostgresMessages(this.context, sessionId, count);
  }

  async createRun(sessionId: string, run: CreateRunInput): Promise<RunRecord> {
    return runs.createPostgresRun(this.context, sessionId, run);
  }
  async updateRunStatus(sessionId: string, runId: string, status: RunStatus, patch?: RunPatch): Promise<void> {
    await runs.updatePostgresRunStatus(this.context, sessionId, runId, status, patch);
  }
  async compareAndSetRunStatus(sessionId: string, runId: string, from: readonly RunStatus[], status: RunStatus, patch?: RunPatch): Promise<boolean> {
    return runs.updatePostgresRunStatus(this.context, sessionId, runId, status, patch, from);
  }
  async getCurrentRun(sessionId: string): Promise<RunRecord | null> {
    return (await runs.readPostgresRuns(this.context, sessionId, { latestOnly: true }))[0] ?? null;
  }
  async listRuns(sessionId: string): Promise<{ runs: RunRecord[] }> {
    return { runs: await runs.readPostgresRuns(this.context, sessionId) };
  }
  async getRun(sessionId: string, runId: string): Promise<RunRecord | null> {
    return (await runs.readPostgresRuns(this.context, sessionId, { runId }))[0] ?? null;
  }
  async runsWaitingOrAborted(runList: ReadonlyArray<{ sessionId: string; runId: string }>): Promise<string[]> {
    return runs.postgresRunsWaitingOrAborted(this.context, runList);
  }

  async createCheckpoint(sessionId: string, meta: CheckpointMeta): Promise<Checkpoint> {
    return checkpoints.createPostgresCheckpoint(this.context, sessionId, meta);
  }
  async getLatestCheckpoint(sessionId: string): Promise<Checkpoint | null> {
    return checkpoints.getLatestPostgresCheckpoint(this.context, sessionId);
  }
  async getCheckpoint(sessionId: string, checkpointId: string): Promise<Checkpoint | null> {
    return (await checkpoints.readPostgresCheckpoints(this.context, sessionId, checkpointId))[0] ?? null;
  }
  async listCheckpoints(sessionId: string): Promise<Checkpoint[]> {
    return checkpoints.readPostgresCheckpoints(this.context, sessionId);
  }

  async addSubSessionRefs(sessionId: string, refs: SubSessionRef[]): Promise<void> {
    await subSessions.addPostgresSubSessionRefs(this.context, sessionId, refs);
  }
  async updateSubSessionRef(sessionId: string, subSessionId: string, patch: SubSessionRefPatch): Promise<void> {
    await subSessions.updatePostgresSubSessionRef(this.context, sessionId, subSessionId, patch);
  }
  async getSubSessionRefs(sessionId: string): Promise<SubSessionRef[]> {
    return subSessions.getPostgresSubSessionRefs(this.context, sessionId);
  }

  async stageChanges(sessionId: string, changes: StagedChanges): Promise<void> {
    await staging.stagePostgresChanges(this.context, sessionId, changes);
  }
  async getStagedChanges(sessionId: string, stepId?: string): Promise<StagedChanges[]> {
    return staging.getPostgresStagedChanges(this.context, sessionId, stepId);
  }
  async promoteStaging(sessionId: string, stepId: string): Promise<{ newVersion: number }> {
    return staging.promotePostgresStaging(this.context, sessionId, stepId);
  }
  async discardStaging(sessionId: string, stepId?: string): Promise<void> {
    await staging.deletePostgresStaging(this.context, sessionId, stepId === undefined ? {} : { stepId });
  }
  async hasStagedChanges(sessionId: string, stepId?: string): Promise<boolean> {
    return staging.hasPostgresStagedChanges(this.context, sessionId, stepId);
  }
  async cleanupOrphanedStaging(sessionId: string, keepStepId?: string): Promise<number> {
    return staging.deletePostgresStaging(this.context, sessionId, keepStepId === undefined ? { keep: true } : { stepId: keepStepId, keep: true });
  }

  /** Destroy the connection pool when the store created it (a knex you passed in is left open). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsKnex) await this.knex.destroy();
  }
}

guardStateStoreArguments(PostgresStateStore, POSTGRES_STORE_ARGUMENTS);

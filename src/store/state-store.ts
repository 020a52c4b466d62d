import type { Message, StoredMessage } from '../types/message.js';
import type { StepCommitReport } from '../types/step-commit-report.js';
import type {
  Checkpoint,
  CheckpointMeta,
  CompareAndSetOptions,
  CompareAndSetResult,
  CreateRunInput,
  CreateSessionOptions,
  GetMessagesOptions,
  GetMessagesResult,
  InterruptContext,
  InterruptFlagResult,
  RunRecord,
  RunStatus,
  SaveAndPromoteOptions,
  SessionState,
  SessionStateWrite,
  SessionStatus,
  StagedChanges,
  SubSessionRef,
} from '../types/session.js';
import type { JsonPatchOperation } from '../types/json-patch.js';
import type { SessionListPage, SessionListQuery } from './session-listing.js';
import type { StateStoreStepRecords } from './step-records.js';

/**
 * Durable, session-keyed storage for agent conversations: state, messages, runs, checkpoints, sub-session
 * links and staged tool writes. Every method is atomic on its own; `saveStateAndPromoteStaging` is the one
 * multi-table primitive the runtime commits a step with.
 *
 * Message appends are idempotent by message `id`: appending a message whose id already exists in the
 * session is a no-op, so a retried step never duplicates history.
 *
 * Versions: a session starts at version 1. Every write to the session's state bumps it (saveState,
 * mergeCustomState, updateStatus, a successful compareAndSetStatus, saveStateAndPromoteStaging,
 * promoteStaging with rows, createCheckpoint, the counters, patchMetadata). Message, run, staging,
 * sub-session-ref and interrupt-flag writes do not, so they never make a concurrent versioned commit stale.
 *
 * Missing sessions: reads return null / empty results; writes throw SessionNotFoundError (deletes, discards
 * and clears are no-ops; compareAndSetStatus reports `currentStatus: null`). Values are stored
 * as JSON (a BigInt or cycle throws InvalidArgumentError before anything is written). Driver failures throw
 * StoreError; no error message carries payloads or SQL parameters.
 *
 * Ids (session, linked session, run, checkpoint/step, message ids) are 1–2,048 bytes of UTF-8 without NUL or other
 * control characters (`assertStoredId`); every method refuses others with InvalidArgumentError (`INVALID_ARGUMENT`)
 * before reading or writing anything (`guardStateStoreArguments`, the same rules for every implementation).
 *
 * Implementations: `PostgresStateStore` (production), `InMemoryStateStore` (tests, from `/testing`).
 *
 * @example
 * const store: SessionStateStore = new PostgresStateStore({ connectionString });
 * await store.createSession('s1', { agentType: 'assistant' });
 */
export interface SessionStateStore {
  // ── Lifecycle ────────────────────────────────────────────────────────────
  /** Create a session. Exactly one of concurrent calls wins; the others throw SessionAlreadyExistsError. */
  createSession<TState = Record<string, unknown>>(
    sessionId: string,
    options: CreateSessionOptions<TState>,
  ): Promise<SessionState<TState>>;
  sessionExists(sessionId: string): Promise<boolean>;
  /**
   * Retention: root sessions (no parent) that ended `completed` or `failed` before `finishedBefore` (epoch ms, by their
   * last write), oldest first, at most `limit` (default 100). Sub-agent sessions are not listed: they share their
   * root's stream and DBOS records. Sessions whose metadata carries `helix.prunedAt` (set by the executor's
   * retention) are skipped.
   */
  listFinishedSessions(finishedBefore: number, options?: { limit?: number }): Promise<Array<{ sessionId: string; streamId: string }>>;
  /**
   * Observability: how many `active` sessions hold at least one client tool call or approval no one has answered yet
   * (the `helix.sessions.waiting_for_human` gauge). Optional: a store without it leaves the gauge unreported.
   */
  countSessionsAwaitingHumans?(): Promise<number>;
  /**
   * Of `runs`, the ids of those a caller awaiting them must look at: runs recorded `aborted`, and `running` runs whose
   * session holds a client tool call or approval no one answered yet, or owns a sub-agent's call not yet completed
   * (`clientToolCallOwnership`). May name a run that turns out not to wait (the caller's full look decides); never
   * leaves out one that does. In one read for all of them: the handles of runs that other processes run (queued runs)
   * share one check a second instead of reading each run and session. Optional: without it each handle reads its own.
   */
  runsWaitingOrAborted?(runs: ReadonlyArray<{ sessionId: string; runId: string }>): Promise<string[]>;
  /**
   * Operators' view (the console, the CLI): a page of sessions, most recently written first, with how many match in
   * all. Optional: a store without it cannot back them. `INVALID_ARGUMENT` for a malformed query.
   */
  listSessions?(query?: SessionListQuery): Promise<SessionListPage>;
  /** Delete a session and everything it owns (messages, runs, checkpoints, refs, staging). No-op if absent. */
  deleteSession(sessionId: string): Promise<void>;
  /**
   * Copy a session into a new one: state, and messages up to the checkpoint's messageCount (all when no
   * checkpoint is named). Used for branching. Throws SessionNotFoundError / SessionAlreadyExistsError.
   */
  cloneSession(
    sourceSessionId: string,
    targetSessionId: string,
    options?: { checkpointId?: string; agentType?: string },
  ): Promise<SessionState>;

  // ── State ────────────────────────────────────────────────────────────────
  loadState<TState = Record<string, unknown>, TOutput = unknown>(
    sessionId: string,
  ): Promise<SessionState<TState, TOutput> | null>;
  /**
   * Write the given fields, bump version. A key present with `undefined` (or `null`, except for `output`)
   * clears an optional field; `mode` is write-once (a session that has one keeps it). Writing
   * `checkpointId` moves the checkpoint pointer. With `expectedVersion`, throws StaleStateError on mismatch.
   */
  saveState(sessionId: string, state: SessionStateWrite, options?: { expectedVersion?: number }): Promise<{ newVersion: number }>;
  /** Apply RFC 6902 patches to customState atomically; returns the new version. */
  mergeCustomState(sessionId: string, patches: JsonPatchOperation[]): Promise<{ newVersion: number }>;
  /** Unconditional status write (no CAS). */
  updateStatus(
    sessionId: string,
    status: SessionStatus,
    context?: { interruptContext?: InterruptContext; error?: string; failureReason?: string },
  ): Promise<void>;
  /**
   * Atomic CAS on status (and, when given, version): of concurrent callers exactly one wins. A missing
   * session yields `{ ok: false, currentStatus: null, currentVersion: 0 }`.
   */
  compareAndSetStatus(
    sessionId: string,
    expectedStatuses: readonly SessionStatus[],
    newStatus: SessionStatus,
    options?: CompareAndSetOptions,
  ): Promise<CompareAndSetResult>;
  /**
   * The step commit, all-or-nothing: write `state` fields, apply the staged patches of `options.stepId`
   * (default `checkpointMeta.checkpointId`) to customState in staging order with the parallel-tool merge
   * contract (appends compose, replaces are last-write-wins, an operation whose target an earlier tool
   * removed is skipped; a failed `test` operation rejects the commit), delete those staged rows,
   * append `appendMessages` (idempotent by id), write the checkpoint and point the session at it, bump the
   * version. With `expectedVersion`, throws StaleStateError (writing nothing) when the version differs.
   * Re-committing an existing checkpoint id is a no-op that returns the current version.
   */
  saveStateAndPromoteStaging(
    sessionId: string,
    state: SessionStateWrite,
    appendMessages: Message[],
    checkpointMeta: CheckpointMeta,
    options?: SaveAndPromoteOptions,
  ): Promise<{ newVersion: number; checkpointId: string; report?: StepCommitReport }>;
  incrementStepCount(sessionId: string): Promise<number>;
  incrementResumeCount(sessionId: string): Promise<number>;
  /** Merge keys into `metadata` (a `null` value deletes the key). */
  patchMetadata(sessionId: string, patch: Record<string, string | null>): Promise<void>;

  // ── Interrupt flag ───────────────────────────────────────────────────────
  setInterruptFlag(sessionId: string, reason?: string): Promise<void>;
  /** Atomic check-and-clear. */
  checkInterruptFlag(sessionId: string): Promise<InterruptFlagResult>;
  /** Whether the flag is set, without clearing it (a read; polled while an LLM call is in flight). */
  isInterruptRequested(sessionId: string): Promise<boolean>;
  /**
   * The flag and its reason, without clearing it: a run that observes an interrupt leaves the flag set until its
   * next run starts, so `resume()` can tell an interruption that is still landing from a run that goes on.
   */
  readInterruptFlag(sessionId: string): Promise<InterruptFlagResult>;
  clearInterruptFlag(sessionId: string): Promise<void>;

  // ── Messages ─────────────────────────────────────────────────────────────
  /** Append in order; messages without `id` get one. Existing ids are skipped. Returns the new total. */
  appendMessages(sessionId: string, messages: Message[]): Promise<number>;
  getMessages(sessionId: string, options?: GetMessagesOptions): Promise<GetMessagesResult>;
  getMessageCount(sessionId: string): Promise<number>;
  /** Keep the first `count` messages, delete the rest; the next append gets sequence `count + 1`. */
  truncateMessages(sessionId: string, count: number): Promise<void>;

  // ── Runs ─────────────────────────────────────────────────────────────────
  /**
   * Record a run; the store assigns the next contiguous `turn` (a given `turn` must equal it). Idempotent by
   * runId: an existing run is returned unchanged.
   */
  createRun(sessionId: string, run: CreateRunInput): Promise<RunRecord>;
  /**
   * Set a run's status and the defined patch fields. `running` clears the outcome fields (completionReason, error,
   * endedAt) the patch leaves undefined: a resumed run has no outcome yet. Unknown run: InvalidArgumentError.
   */
  updateRunStatus(
    sessionId: string,
    runId: string,
    status: RunStatus,
    patch?: Partial<Pick<RunRecord, 'stepCount' | 'completionReason' | 'error' | 'endedAt' | 'metadata' | 'workflowId'>>,
  ): Promise<void>;
  /**
   * `updateRunStatus` only while the run's status is one of `from`, atomically: true when it wrote, false (nothing
   * written) when the run had another status. Optional: without it, the runtime reads the run and then writes it, so
   * two writers recording one event (a DBOS cancel seen by the run itself and by a stuck-run repair) can both write.
   * Unknown run: InvalidArgumentError.
   *
   * @example
   * const won = await store.compareAndSetRunStatus?.('s1', 'r1', ['running'], 'aborted', { completionReason: 'aborted' });
   */
  compareAndSetRunStatus?(
    sessionId: string,
    runId: string,
    from: readonly RunStatus[],
    status: RunStatus,
    patch?: Partial<Pick<RunRecord, 'stepCount' | 'completionReason' | 'error' | 'endedAt' | 'metadata' | 'workflowId'>>,
  ): Promise<boolean>;
  /** The run with the highest turn, or null. */
  getCurrentRun(sessionId: string): Promise<RunRecord | null>;
  listRuns(sessionId: string): Promise<{ runs: RunRecord[] }>;
  getRun(sessionId: string, runId: string): Promise<RunRecord | null>;

  // ── Checkpoints ──────────────────────────────────────────────────────────
  /**
   * Snapshot the session's current customState and message count under `meta.checkpointId`; moves the
   * pointer. An existing checkpoint id returns the stored checkpoint and writes nothing.
   */
  createCheckpoint(sessionId: string, meta: CheckpointMeta): Promise<Checkpoint>;
  /** The most recently written checkpoint (the session's pointer), not the highest stepCount. */
  getLatestCheckpoint(sessionId: string): Promise<Checkpoint | null>;
  getCheckpoint(sessionId: string, checkpointId: string): Promise<Checkpoint | null>;
  listCheckpoints(sessionId: string): Promise<Checkpoint[]>;

  // ── Sub-sessions ─────────────────────────────────────────────────────────
  /** Insert refs; an existing subSessionId is left as it is. An absent `completionDelivered` means "not delivered". */
  addSubSessionRefs(sessionId: string, refs: SubSessionRef[]): Promise<void>;
  /** Patch one ref (defined fields only; `completedAt` defaults to now on a terminal status). Unknown ref: InvalidArgumentError. */
  updateSubSessionRef(
    sessionId: string,
    subSessionId: string,
    patch: Partial<Omit<SubSessionRef, 'subSessionId' | 'startedAt'>>,
  ): Promise<void>;
  getSubSessionRefs(sessionId: string): Promise<SubSessionRef[]>;

  // ── Staging ──────────────────────────────────────────────────────────────
  /** Upsert one tool's writes for a step, keyed by (stepId, stagingKey). */
  stageChanges(sessionId: string, changes: StagedChanges): Promise<void>;
  getStagedChanges(sessionId: string, stepId?: string): Promise<StagedChanges[]>;
  /** Apply a step's staged patches to customState and delete them, atomically. Returns the new version. */
  promoteStaging(sessionId: string, stepId: string): Promise<{ newVersion: number }>;
  discardStaging(sessionId: string, stepId?: string): Promise<void>;
  hasStagedChanges(sessionId: string, stepId?: string): Promise<boolean>;
  /** Delete staged rows of every step except `keepStepId`. Returns how many rows went. */
  cleanupOrphanedStaging(sessionId: string, keepStepId?: string): Promise<number>;

  /** Release connections (a pool the caller passed in is left open). Idempotent. */
  close(): Promise<void>;

  // ── Step records (optional) ──────────────────────────────────────────────
  /**
   * Declared by a store that can write inside a caller's Postgres transaction (`PostgresStateStore`): the fused
   * journal then commits a step's store writes in the step's record transaction when the store is on DBOS's system
   * database. A store without it (in-memory) writes on its own. One object for the store's lifetime.
   */
  readonly stepRecords?: StateStoreStepRecords;
}

export type { StoredMessage };

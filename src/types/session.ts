import type { JsonPatchOperation } from './json-patch.js';
import type { Message, StoredMessage } from './message.js';

export type { SubSessionRef } from './sub-session-ref.js';

/**
 * Lifecycle status of a session (the conversation), not of one run.
 *
 * @example
 * if ((await stateStore.loadState('s1'))?.status === 'interrupted') await executor.resume(agent, 's1');
 */
export type SessionStatus = 'active' | 'completed' | 'failed' | 'interrupted' | 'paused';

/**
 * Status of one run (one execute/resume turn).
 *
 * @example
 * const suspended = (await stateStore.listRuns('s1')).runs.filter((run) => run.status === 'suspended_client_tool');
 */
export type RunStatus =
  | 'running'
  | 'completed'
  | 'failed'
  | 'interrupted'
  | 'aborted'
  | 'suspended_client_tool'
  | 'suspended_awaiting_children'
  | 'suspended_step_partial';

/**
 * DBOS execution mode, written once at session creation.
 *
 * @example
 * const mode: DBOSAgentMode = 'standard';
 */
export type DBOSAgentMode = 'standard' | 'persistent';

/**
 * Why a run halted.
 *
 * @example
 * if (result.completionReason === 'max_steps') console.warn('raise maxSteps');
 */
export type CompletionReason =
  | 'finish_tool'
  | 'max_steps'
  | 'stop_when'
  | 'idle_timeout'
  | 'shutdown'
  | 'interrupted'
  | 'aborted'
  | 'failed'
  | 'text_response'
  | 'suspended';

/** Context recorded when a session is interrupted or paused. */
export interface InterruptContext {
  reason?: string;
  interruptedAt: number;
  runId?: string;
  stepCount?: number;
}

/**
 * A client-executed or approval-gated tool call waiting for a submission.
 *
 * @example
 * const pending = Object.values((await handle.getState())?.pendingClientToolCalls ?? {});
 */
export interface PendingClientToolCall {
  toolCallId: string;
  toolName: string;
  /** 'client' for `execute: 'client'` tools, 'approval' for approval-gated server tools. */
  kind: 'client' | 'approval';
  /** Validated tool input. */
  input: Record<string, unknown>;
  /** Session whose workflow waits for this call (the root for top-level calls). */
  ownerSessionId: string;
  agentType: string;
  runId: string;
  /** The approvalId a client must echo back for approval gates (defaults to the toolCallId). */
  approvalId?: string;
  createdAt: number;
  /** Absolute deadline in epoch ms (from the tool's `timeoutMs`). */
  deadlineAt?: number;
  /** Set by the first accepted submission (OCC-stamped). */
  submittedAt?: number;
  /** The submitted payload, kept until the owner workflow drains it. */
  submission?: {
    kind: 'client-tool-result' | 'approval-response';
    result?: unknown;
    error?: string;
    approved?: boolean;
    reason?: string;
  };
}

/** A parent waiting on sub-agent children. */
export interface SuspendedChildWait {
  childSessionId: string;
  toolCallId: string;
  agentType: string;
}

/** Root-only map of toolCallId → owning session id, for routing submissions to sub-agents. */
export type ClientToolCallOwnership = Record<string, string>;

/**
 * The full durable state of a session.
 *
 * `version` is bumped by every write; CAS operations compare against it.
 *
 * @example
 * const state: SessionState | null = await stateStore.loadState('s1');
 */
export interface SessionState<TState = Record<string, unknown>, TOutput = unknown> {
  sessionId: string;
  agentType: string;
  streamId?: string;
  customState: TState;
  status: SessionStatus;
  stepCount: number;
  output?: TOutput;
  error?: string;
  failureReason?: string;
  interruptContext?: InterruptContext;
  pendingClientToolCalls?: Record<string, PendingClientToolCall>;
  suspendedAwaitingChildren?: Record<string, SuspendedChildWait>;
  suspendedStepId?: string;
  completedClientToolCalls?: Record<string, number>;
  clientToolCallOwnership?: ClientToolCallOwnership;
  tracingContext?: { traceId: string; rootSpanId: string };
  expiresAt?: number;
  parentSessionId?: string;
  rootSessionId?: string;
  mode?: DBOSAgentMode;
  version: number;
  resumeCount: number;
  checkpointId?: string;
  checkpointedAt?: number;
  checkpointSource?: 'staging' | 'save';
  userId?: string;
  tags?: string[];
  metadata?: Record<string, string>;
  createdAt: number;
  updatedAt: number;
}

/** Fields a caller may write through `saveState` / `saveStateAndPromoteStaging` (identity fields excluded). */
export type SessionStateWrite<TState = Record<string, unknown>, TOutput = unknown> = Partial<
  Omit<SessionState<TState, TOutput>, 'sessionId' | 'version' | 'createdAt' | 'updatedAt'>
>;

/** Options for `createSession`. */
export interface CreateSessionOptions<TState = Record<string, unknown>> {
  agentType: string;
  customState?: TState;
  streamId?: string;
  status?: SessionStatus;
  mode?: DBOSAgentMode;
  parentSessionId?: string;
  rootSessionId?: string;
  userId?: string;
  tags?: string[];
  metadata?: Record<string, string>;
  expiresAt?: number;
}

/**
 * One run (turn) of a session.
 *
 * @example
 * const { runs }: { runs: RunRecord[] } = await stateStore.listRuns('s1');
 */
export interface RunRecord {
  runId: string;
  sessionId: string;
  /** 1-based, contiguous per session. */
  turn: number;
  status: RunStatus;
  stepCount: number;
  /** Stream sequence when the run started; readers of this run start after it. */
  startSequence: number;
  previousRunId?: string;
  workflowId?: string;
  completionReason?: CompletionReason;
  error?: string;
  startedAt: number;
  endedAt?: number;
  metadata?: Record<string, unknown>;
}

/** Input to `createRun`; the store assigns `turn`. */
export type CreateRunInput = Omit<RunRecord, 'turn' | 'sessionId'> & { turn?: number };

/**
 * A committed step boundary. Id convention: `${runId}:${stepNumber}`.
 *
 * @example
 * const latest: Checkpoint | null = await stateStore.getLatestCheckpoint('s1');
 */
export interface Checkpoint<TState = Record<string, unknown>> {
  id: string;
  sessionId: string;
  runId: string;
  stepCount: number;
  /** Number of messages in the session when the checkpoint was written. */
  messageCount: number;
  customState: TState;
  createdAt: number;
}

/** What a caller supplies to write a checkpoint; the store fills in messageCount, customState, createdAt. */
export interface CheckpointMeta {
  checkpointId: string;
  runId: string;
  stepCount: number;
}

/** One tool's staged state writes for a step, promoted atomically at the step boundary. */
export interface StagedChanges {
  /** Step id, e.g. the checkpoint id `${runId}:${n}` the writes belong to. */
  stepId: string;
  /** Usually the toolCallId; one row per (stepId, stagingKey), upserted so retries are idempotent. */
  stagingKey: string;
  patches: JsonPatchOperation[];
  /** Insertion order among staged rows of the step (assigned by the store). */
  order?: number;
  createdAt?: number;
}

/** Result of `compareAndSetStatus`. */
export type CompareAndSetResult =
  | { ok: true; newVersion: number }
  | { ok: false; currentStatus: SessionStatus | null; currentVersion: number };

/** Options for `compareAndSetStatus`. */
export interface CompareAndSetOptions {
  interruptContext?: InterruptContext;
  error?: string;
  expectedVersion?: number;
}

/** Options for `getMessages`. */
export interface GetMessagesOptions {
  /** Skip this many messages from the start (default 0). */
  offset?: number;
  /** At most this many messages (default: all). */
  limit?: number;
}

/** Result of `getMessages`. */
export interface GetMessagesResult {
  messages: StoredMessage[];
  total: number;
  hasMore: boolean;
}

/** Options for `saveStateAndPromoteStaging`. */
export interface SaveAndPromoteOptions {
  /** Reject with StaleStateError unless the session is at this version. */
  expectedVersion?: number;
  /** Staged rows of this step id are applied to customState (in order) and deleted. Default: checkpointId. */
  stepId?: string;
  /**
   * State writes of the step's tools handed to the commit directly instead of staged, applied after the staged rows
   * exactly as staged rows are (`mergeParallelPatches`). An entry replaces a staged row of the step with the same
   * `stagingKey` (a tool's earlier attempt that staged before it crashed); that row is deleted, not applied.
   */
  patches?: Array<Pick<StagedChanges, 'stagingKey' | 'patches'>>;
}

/** Result of interrupt-flag check-and-clear. */
export interface InterruptFlagResult {
  interrupted: boolean;
  reason?: string;
}

/** Messages to append, in order. */
export type AppendMessages = Message[];

import { PRUNED_MARKER } from '../retention-marker.js';
import { finishedLimit } from '../validation.js';
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
import type { RunPatch, SubSessionRefPatch } from '../record-updates.js';
import type { StatusContext } from '../session-write.js';
import type { SessionStateStore } from '../state-store.js';
import { guardStateStoreArguments } from '../state-store-arguments.js';
import * as checkpoints from './checkpoints.js';
import { commitMemoryStep } from './commit.js';
import { MemoryData } from './memory-data.js';
import * as messages from './messages.js';
import * as runs from './runs.js';
import * as sessions from './sessions.js';
import * as staging from './staging.js';
import * as state from './state.js';
import { awaitsHuman, listMemorySessions, resolveSessionListQuery, type SessionListPage, type SessionListQuery } from '../session-listing.js';
import * as subSessions from './sub-sessions.js';

/**
 * A `SessionStateStore` held in process memory, for tests and single-process demos. Every method is atomic
 * (its work is synchronous) and values are deep-copied in and out through JSON, so callers never share
 * objects with the store and non-JSON values (BigInt, cycles) are rejected exactly as Postgres rejects them.
 * Nothing survives the process.
 *
 * @example
 * const store = new InMemoryStateStore();
 * await store.createSession('s1', { agentType: 'assistant' });
 * await store.appendMessages('s1', [{ role: 'user', content: 'Hello' }]);
 */
export class InMemoryStateStore implements SessionStateStore {
  private readonly data = new MemoryData();

  async createSession<TState = Record<string, unknown>>(sessionId: string, options: CreateSessionOptions<TState>): Promise<SessionState<TState>> {
    return sessions.createMemorySession(this.data, sessionId, options);
  }
  async sessionExists(sessionId: string): Promise<boolean> {
    return this.data.find(sessionId) !== undefined;
  }
  async countSessionsAwaitingHumans(): Promise<number> {
    return [...this.data.sessions.values()].filter(({ state }) => awaitsHuman(state)).length;
  }
  async listSessions(query?: SessionListQuery): Promise<SessionListPage> {
    return listMemorySessions([...this.data.sessions.values()].map(({ state }) => state), resolveSessionListQuery(query));
  }
  async listFinishedSessions(finishedBefore: number, options?: { limit?: number }): Promise<Array<{ sessionId: string; streamId: string }>> {
    return [...this.data.sessions.values()]
      .map(({ state }) => state)
      .filter((state) => (state.status === 'completed' || state.status === 'failed') && state.parentSessionId === undefined && state.updatedAt < finishedBefore)
      .filter((state) => state.metadata?.[PRUNED_MARKER] === undefined)
      .sort((left, right) => left.updatedAt - right.updatedAt)
      .slice(0, finishedLimit(options?.limit))
      .map((state) => ({ sessionId: state.sessionId, streamId: state.streamId ?? state.sessionId }));
  }
  async deleteSession(sessionId: string): Promise<void> {
    if (this.data.find(sessionId) !== undefined) this.data.sessions.delete(sessionId);
  }
  async cloneSession(sourceSessionId: string, targetSessionId: string, options?: { checkpointId?: string; agentType?: string }): Promise<SessionState> {
    return sessions.cloneMemorySession(this.data, sourceSessionId, targetSessionId, options);
  }

  async loadState<TState = Record<string, unknown>, TOutput = unknown>(sessionId: string): Promise<SessionState<TState, TOutput> | null> {
    return sessions.loadMemoryState<TState, TOutput>(this.data, sessionId);
  }
  async saveState(sessionId: string, write: SessionStateWrite, options?: { expectedVersion?: number }): Promise<{ newVersion: number }> {
    return state.saveMemoryState(this.data, sessionId, write, options);
  }
  async mergeCustomState(sessionId: string, patches: JsonPatchOperation[]): Promise<{ newVersion: number }> {
    return state.mergeMemoryCustomState(this.data, sessionId, patches);
  }
  async updateStatus(sessionId: string, status: SessionStatus, context?: StatusContext): Promise<void> {
    state.updateMemoryStatus(this.data, sessionId, status, context);
  }
  async compareAndSetStatus(
    sessionId: string,
    expectedStatuses: readonly SessionStatus[],
    newStatus: SessionStatus,
    options?: CompareAndSetOptions,
  ): Promise<CompareAndSetResult> {
    return state.compareAndSetMemoryStatus(this.data, sessionId, expectedStatuses, newStatus, options);
  }
  async saveStateAndPromoteStaging(
    sessionId: string,
    write: SessionStateWrite,
    appendMessages: Message[],
    checkpointMeta: CheckpointMeta,
    options?: SaveAndPromoteOptions,
  ): Promise<{ newVersion: number; checkpointId: string }> {
    return commitMemoryStep(this.data, sessionId, write, appendMessages, checkpointMeta, options);
  }
  async incrementStepCount(sessionId: string): Promise<number> {
    return state.incrementMemoryCounter(this.data, sessionId, 'stepCount');
  }
  async incrementResumeCount(sessionId: string): Promise<number> {
    return state.incrementMemoryCounter(this.data, sessionId, 'resumeCount');
  }
  async patchMetadata(sessionId: string, patch: Record<string, string | null>): Promise<void> {
    state.patchMemoryMetadata(this.data, sessionId, patch);
  }

  async setInterruptFlag(sessionId: string, reason?: string): Promise<void> {
    state.setMemoryInterruptFlag(this.data, sessionId, reason);
  }
  async checkInterruptFlag(sessionId: string): Promise<InterruptFlagResult> {
    return state.checkMemoryInterruptFlag(this.data, sessionId);
  }
  async clearInterruptFlag(sessionId: string): Promise<void> {
    state.clearMemoryInterruptFlag(this.data, sessionId);
  }
  async isInterruptRequested(sessionId: string): Promise<boolean> {
    return state.isMemoryInterruptRequested(this.data, sessionId);
  }
  async readInterruptFlag(sessionId: string): Promise<InterruptFlagResult> {
    return state.readMemoryInterruptFlag(this.data, sessionId);
  }

  async appendMessages(sessionId: string, toAppend: Message[]): Promise<number> {
    return messages.appendMemoryMessages(this.data, sessionId, toAppend);
  }
  async getMessages(sessionId: string, options?: GetMessagesOptions): Promise<GetMessagesResult> {
    return messages.getMemoryMessages(this.data, sessionId, options);
  }
  async getMessageCount(sessionId: string): Promise<number> {
    return messages.getMemoryMessageCount(this.data, sessionId);
  }
  async truncateMessages(sessionId: string, count: number): Promise<void> {
    messages.truncateMemoryMessages(this.data, sessionId, count);
  }

  async createRun(sessionId: string, run: CreateRunInput): Promise<RunRecord> {
    return runs.createMemoryRun(this.data, sessionId, run);
  }
  async updateRunStatus(sessionId: string, runId: string, status: RunStatus, patch?: RunPatch): Promise<void> {
    runs.updateMemoryRunStatus(this.data, sessionId, runId, status, patch);
  }
  async compareAndSetRunStatus(sessionId: string, runId: string, from: readonly RunStatus[], status: RunStatus, patch?: RunPatch): Promise<boolean> {
    return runs.updateMemoryRunStatus(this.data, sessionId, runId, status, patch, from);
  }
  async getCurrentRun(sessionId: string): Promise<RunRecord | null> {
    return runs.getMemoryCurrentRun(this.data, sessionId);
  }
  async listRuns(sessionId: string): Promise<{ runs: RunRecord[] }> {
    return runs.listMemoryRuns(this.data, sessionId);
  }
  async getRun(sessionId: string, runId: string): Promise<RunRecord | null> {
    return runs.getMemoryRun(this.data, sessionId, runId);
  }
  async runsWaitingOrAborted(runList: ReadonlyArray<{ sessionId: string; runId: string }>): Promise<string[]> {
    return runs.memoryRunsWaitingOrAborted(this.data, runList);
  }

  async createCheckpoint(sessionId: string, meta: CheckpointMeta): Promise<Checkpoint> {
    return checkpoints.createMemoryCheckpoint(this.data, sessionId, meta);
  }
  async getLatestCheckpoint(sessionId: string): Promise<Checkpoint | null> {
    return checkpoints.getLatestMemoryCheckpoint(this.data, sessionId);
  }
  async getCheckpoint(sessionId: string, checkpointId: string): Promise<Checkpoint | null> {
    return checkpoints.getMemoryCheckpoint(this.data, sessionId, checkpointId);
  }
  async listCheckpoints(sessionId: string): Promise<Checkpoint[]> {
    return checkpoints.listMemoryCheckpoints(this.data, sessionId);
  }

  async addSubSessionRefs(sessionId: string, refs: SubSessionRef[]): Promise<void> {
    subSessions.addMemorySubSessionRefs(this.data, sessionId, refs);
  }
  async updateSubSessionRef(sessionId: string, subSessionId: string, patch: SubSessionRefPatch): Promise<void> {
    subSessions.updateMemorySubSessionRef(this.data, sessionId, subSessionId, patch);
  }
  async getSubSessionRefs(sessionId: string): Promise<SubSessionRef[]> {
    return subSessions.getMemorySubSessionRefs(this.data, sessionId);
  }

  async stageChanges(sessionId: string, changes: StagedChanges): Promise<void> {
    staging.stageMemoryChanges(this.data, sessionId, changes);
  }
  async getStagedChanges(sessionId: string, stepId?: string): Promise<StagedChanges[]> {
    return staging.getMemoryStagedChanges(this.data, sessionId, stepId);
  }
  async promoteStaging(sessionId: string, stepId: string): Promise<{ newVersion: number }> {
    return staging.promoteMemoryStaging(this.data, sessionId, stepId);
  }
  async discardStaging(sessionId: string, stepId?: string): Promise<void> {
    staging.discardMemoryStaging(this.data, sessionId, stepId);
  }
  async hasStagedChanges(sessionId: string, stepId?: string): Promise<boolean> {
    return staging.getMemoryStagedChanges(this.data, sessionId, stepId).length > 0;
  }
  async cleanupOrphanedStaging(sessionId: string, keepStepId?: string): Promise<number> {
    return staging.cleanupMemoryOrphanedStaging(this.data, sessionId, keepStepId);
  }

  /** Nothing to release; the data stays readable until the store is garbage-collected. */
  async close(): Promise<void> {}
}

guardStateStoreArguments(InMemoryStateStore);

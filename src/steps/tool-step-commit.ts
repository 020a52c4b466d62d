import type { HookManager } from '../hooks/hook-manager.js';
import { checkpointIdFor } from '../orchestration/ids.js';
import { soleToolCommitMessages, type SoleToolCommit } from '../orchestration/sole-tool-commit.js';
import type { ToolOutcome } from '../orchestration/tool-outcome.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { StateStoreStepRecords } from '../store/step-records.js';
import type { StreamManagerStepRecords } from '../stream/step-records.js';
import { InternalError } from '../errors/index.js';
import type { JsonPatchOperation } from '../types/json-patch.js';
import type { StepCommitReport } from '../types/step-commit-report.js';
import type { RunScope } from './step-scope.js';
import type { RecordOutcome, StepRecord } from '../journal/step-record.js';

/** Reports of steps committed by their tool step in this process, for the next `CallLLMStep` (most recent last). */
const MAX_REPORTS = 256;
const reports = new Map<string, { store: SessionStateStore; report: StepCommitReport }>();

/**
 * Whether this tool step records its agent step's commit itself (`commit` given by the workflow, see
 * `soleToolCommit`): only when the store's `stepRecords` join the step's record (the fused journal's, on DBOS's system
 * database; the public journal's batch record, on a store that lends connections: one transaction either way) and no
 * onMessage/afterTool hook is registered (they fire after a commit, from a step that can run them again after a crash;
 * here the step's record follows the commit at once).
 *
 * @example
 * const commitsHere = await recordsStepCommit(stateStore, hooks, record, input.commit);
 */
export async function recordsStepCommit(
  stateStore: SessionStateStore,
  hooks: Pick<HookManager, 'hasHooks'>,
  record: StepRecord,
  commit: SoleToolCommit | undefined,
): Promise<boolean> {
  if (commit === undefined || hooks.hasHooks('onMessage') || hooks.hasHooks('afterTool')) return false;
  return record.joins(stateStore.stepRecords);
}

/**
 * Whether a step committed with its tool's record may store its `state_patch` chunk as a reference to the step's
 * checkpoint (which keeps the patches): the stream manager's chunks are in the store's schema (the record joined
 * both, so one database). The manager still stores the chunk whole unless it appends inside that record.
 *
 * @example
 * const patchesIn = commitsHere && chunksBesideCheckpoints(stateStore, streamManager) ? stepId : undefined;
 */
export function chunksBesideCheckpoints(
  stateStore: { readonly stepRecords?: Pick<StateStoreStepRecords, 'schema'> },
  streamManager: { readonly stepRecords?: Pick<StreamManagerStepRecords, 'schema'> },
): boolean {
  const schema = stateStore.stepRecords?.schema();
  return schema !== undefined && schema === streamManager.stepRecords?.schema();
}

/**
 * Commit the agent step with the tool's record (after {@link recordsStepCommit} said yes): its messages (head,
 * the tool's result, tail), the tool's state writes as unstaged patches, checkpoint `${runId}:${step}`. The commit's
 * report is kept for the next `CallLLMStep` of this process.
 *
 * @example
 * deferStepCommit(record, stateStore, input, input.commit, outcome, patches);
 */
export function deferStepCommit(
  record: StepRecord,
  stateStore: SessionStateStore,
  scope: RunScope & { step: number },
  commit: SoleToolCommit,
  outcome: ToolOutcome,
  patches: JsonPatchOperation[],
): void {
  const stepRecords = stateStore.stepRecords;
  if (stepRecords === undefined) throw new InternalError('deferStepCommit needs a store that declares stepRecords; ask recordsStepCommit first.');
  const messages = soleToolCommitMessages(commit, outcome);
  const meta = { checkpointId: checkpointIdFor(scope.runId, scope.step), runId: scope.runId, stepCount: scope.step };
  let report: StepCommitReport | undefined;
  let onCommitted: ((outcome: RecordOutcome) => void) | undefined;
  record.defer({
    within: async (connection) => {
      const options = { patches: [{ stagingKey: outcome.toolCallId, patches }] };
      ({ report, onCommitted } = await stepRecords.commitStepOn(connection, scope.sessionId, { stepCount: scope.step }, messages, meta, options));
    },
    committed: (recorded) => {
      onCommitted?.(recorded);
      if (report !== undefined) remember(reportKey(scope, scope.step), stateStore, report);
    },
  });
}

/**
 * The report of step `step`'s commit when its tool step recorded it in this process (taken: a second call gets
 * `undefined`), so the next `CallLLMStep` reads neither the session nor the interrupt flag again.
 *
 * @example
 * const report = takeToolStepReport(stateStore, scope, step - 1);
 */
export function takeToolStepReport(stateStore: SessionStateStore, scope: Pick<RunScope, 'sessionId' | 'runId'>, step: number): StepCommitReport | undefined {
  const key = reportKey(scope, step);
  const entry = reports.get(key);
  reports.delete(key);
  return entry !== undefined && entry.store === stateStore ? entry.report : undefined;
}

function remember(key: string, store: SessionStateStore, report: StepCommitReport): void {
  reports.set(key, { store, report });
  while (reports.size > MAX_REPORTS) {
    const oldest = reports.keys().next().value;
    if (oldest === undefined) return;
    reports.delete(oldest);
  }
}

function reportKey(scope: Pick<RunScope, 'sessionId' | 'runId'>, step: number): string {
  return `${scope.sessionId}\u0000${scope.runId}\u0000${step}`;
}

/**
 * What an earlier attempt of this tool step recorded, when its record committed the agent step but the step itself was
 * not recorded (the public journal's batch record commits before DBOS's row: a crash or a cancel between the two):
 * checkpoint `stepId` exists, and the call's result message tells whether it succeeded. The step then returns that,
 * and neither runs the tool again nor streams its chunks twice. `undefined`: nothing committed, run the call. Asked
 * only by the first live step after replayed ones (the only one such an attempt can precede).
 *
 * @example
 * const earlier = record.firstLiveAfterReplay === true ? await committedEarlier(stateStore, input, stepId, commit) : undefined;
 */
export async function committedEarlier(
  stateStore: SessionStateStore,
  scope: Pick<RunScope, 'sessionId'>,
  stepId: string,
  call: { toolCallId: string; resultMessageId: string },
  commit: SoleToolCommit,
): Promise<{ toolCallId: string; committed: true; success?: false } | undefined> {
  const checkpoint = await stateStore.getCheckpoint(scope.sessionId, stepId);
  if (checkpoint === null) return undefined;
  const written = commit.head.length + 1 + commit.tail.length;
  const { messages } = await stateStore.getMessages(scope.sessionId, { offset: Math.max(0, checkpoint.messageCount - written), limit: written });
  const result = messages.find((message) => message.id === call.resultMessageId);
  const failed = result?.role === 'tool' && result.isError === true;
  return failed ? { toolCallId: call.toolCallId, committed: true, success: false } : { toolCallId: call.toolCallId, committed: true };
}

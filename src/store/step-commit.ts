import type { JsonPatchOperation } from '../types/json-patch.js';
import type { Checkpoint, CheckpointMeta, SaveAndPromoteOptions, SessionState, SessionStateWrite, StagedChanges } from '../types/session.js';
import { cloneJson } from '../database/json.js';
import { mergeParallelPatches } from '../state/index.js';
import { applySessionWrite } from './session-write.js';

/**
 * What one `saveStateAndPromoteStaging` writes: the next session state and the new checkpoint.
 *
 * @example
 * const { state, checkpoint }: StepCommit = buildStepCommit(current, write, staged, 3, meta, Date.now());
 */
export interface StepCommit {
  state: SessionState;
  checkpoint: Checkpoint;
  /**
   * The RFC 6902 operations that turned the previous customState into the checkpoint's (the staged patches
   * that applied, in order; replaying them with `replayCheckpointDelta` gives the same state), or `null`
   * when the write replaced customState, so only a full snapshot describes the step.
   */
  delta: JsonPatchOperation[] | null;
  /** The staged patches that applied, in order (what the step's `state_patch` chunk reports), also when `delta` is `null`. */
  patches: JsonPatchOperation[];
}

/**
 * Compute a step commit without writing: apply `write`, then the staged patches (in order) to customState,
 * snapshot a checkpoint with `messageCount` messages (and the step's delta), and point the session at it (version + 1). Throws
 * (InvalidArgumentError) before anything is written when a value is not JSON or a patch cannot apply.
 *
 * @example
 * const { state, checkpoint } = buildStepCommit(current, write, stagedRows, 12, meta, Date.now());
 */
export function buildStepCommit(
  current: SessionState,
  write: SessionStateWrite,
  staged: readonly Pick<StagedChanges, 'patches'>[],
  messageCount: number,
  meta: CheckpointMeta,
  now: number,
): StepCommit {
  const written = applySessionWrite(current, write, now);
  const replaced = write.customState !== undefined && write.customState !== null;
  const merged = staged.every((row) => row.patches.length === 0)
    ? { state: written.customState, patches: [] }
    : mergeParallelPatches(written.customState, staged.map((row) => row.patches));
  const customState = merged.state;
  const state: SessionState = {
    ...written,
    customState,
    checkpointId: meta.checkpointId,
    checkpointedAt: now,
    checkpointSource: 'staging',
  };
  const checkpoint: Checkpoint = {
    id: meta.checkpointId,
    sessionId: current.sessionId,
    runId: meta.runId,
    stepCount: meta.stepCount,
    messageCount,
    customState: cloneJson(customState, 'customState'),
    createdAt: now,
  };
  return { state, checkpoint, delta: replaced ? null : merged.patches, patches: merged.patches };
}

/**
 * The rows a commit applies, in order: the step's staged rows, except those a direct entry of `options.patches`
 * replaces (same staging key), then the direct entries.
 *
 * @example
 * buildStepCommit(current, write, rowsToApply(staged, options), count, meta, now);
 */
export function rowsToApply<Row extends Pick<StagedChanges, 'stagingKey' | 'patches'>>(
  staged: readonly Row[],
  options: Pick<SaveAndPromoteOptions, 'patches'>,
): Array<Pick<StagedChanges, 'stagingKey' | 'patches'>> {
  const direct = options.patches ?? [];
  const replaced = new Set(direct.map((entry) => entry.stagingKey));
  return [...staged.filter((row) => !replaced.has(row.stagingKey)), ...direct];
}

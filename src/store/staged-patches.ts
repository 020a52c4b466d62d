import { applyPatches, applyPatchesDetailed, mergeParallelPatches } from '../state/index.js';
import type { JsonPatchOperation } from '../types/json-patch.js';
import type { StagedChanges } from '../types/session.js';

/**
 * Apply staged rows to `customState` with the parallel-tool merge contract: each row is one tool's patch
 * set, applied in staging order, so appends compose (all survive) and replaces are last-write-wins; an
 * operation whose target another tool already removed is skipped rather than failing the step commit.
 * A malformed operation or a failed `test` throws InvalidArgumentError. Returns a new state.
 *
 * @example
 * const next = applyStagedChanges(state.customState, await store.getStagedChanges(id, stepId));
 */
export function applyStagedChanges<TState>(customState: TState, staged: readonly Pick<StagedChanges, 'patches'>[]): TState {
  if (staged.every((row) => row.patches.length === 0)) return customState;
  return mergeParallelPatches(customState, staged.map((row) => row.patches)).state;
}

/**
 * Apply one RFC 6902 patch list strictly (an operation that does not fit throws InvalidArgumentError).
 *
 * @example
 * const next = applyCustomStatePatches({ count: 1 }, [{ op: 'replace', path: '/count', value: 2 }]);
 */
export function applyCustomStatePatches<TState>(customState: TState, patches: JsonPatchOperation[]): TState {
  return applyPatches(customState, patches);
}

/**
 * Replay a checkpoint's stored delta (the operations a step commit applied, see `StepCommit.delta`) on the
 * state of its base checkpoint. Same semantics as the commit's merge (a `replace` of a missing member sets
 * it), but strict: an operation that does not fit means the chain is not the one that was written, so it
 * throws (InvalidArgumentError) instead of silently skipping.
 *
 * @example
 * const state = replayCheckpointDelta(baseState, [{ op: 'add', path: '/items/-', value: 'a' }]);
 */
export function replayCheckpointDelta<TState>(customState: TState, patches: readonly JsonPatchOperation[]): TState {
  return applyPatchesDetailed(customState, patches, 'throw', 'set').state;
}

import type { JsonPatchOperation } from '../types/json-patch.js';
import { applyPatchesDetailed } from './apply-patches.js';

/**
 * An operation left out of a merge because it no longer fit the merged state (for example a `remove` of a
 * member another tool already removed).
 *
 * @example
 * const conflict: PatchConflictReport = { patchSetIndex: 1, operationIndex: 0, op: 'remove' };
 */
export interface PatchConflictReport {
  patchSetIndex: number;
  operationIndex: number;
  op: JsonPatchOperation['op'];
}

/**
 * The merged outcome of parallel tools' state writes.
 *
 * @example
 * const { state, patches, conflicts }: MergedPatches<{ items: number[] }> = mergeParallelPatches(base, sets);
 */
export interface MergedPatches<TState> {
  state: TState;
  /** The operations that were applied, in order (what a `state_patch` chunk / onStateChange reports). */
  patches: JsonPatchOperation[];
  conflicts: PatchConflictReport[];
}

/**
 * Merge the patch sets of tools that ran in parallel from the same base state (the parallel-tool merge
 * contract): sets are applied in order, so appends (`add` to `…/-`) compose and all survive, while
 * `replace` and other writes to the same location are last-write-wins in patch-set order. A `replace` of a
 * member an earlier set removed re-creates it; an operation whose target is gone is skipped and reported
 * in `conflicts`. Index-addressed array edits are not rebased across sets. Pure.
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT` for a malformed operation or a failed `test`.
 * @example
 * mergeParallelPatches({ items: [], status: 'new' }, [
 *   [{ op: 'add', path: '/items/-', value: 'a' }, { op: 'replace', path: '/status', value: 'one' }],
 *   [{ op: 'add', path: '/items/-', value: 'b' }, { op: 'replace', path: '/status', value: 'two' }],
 * ]).state; // { items: ['a', 'b'], status: 'two' }
 */
export function mergeParallelPatches<TState>(base: TState, patchSets: readonly (readonly JsonPatchOperation[])[]): MergedPatches<TState> {
  let state = base;
  const patches: JsonPatchOperation[] = [];
  const conflicts: PatchConflictReport[] = [];
  patchSets.forEach((patchSet, patchSetIndex) => {
    const result = applyPatchesDetailed(state, patchSet, 'skip');
    state = result.state;
    patches.push(...result.applied);
    for (const operationIndex of result.skipped) {
      conflicts.push({ patchSetIndex, operationIndex, op: (patchSet[operationIndex] as JsonPatchOperation).op });
    }
  });
  return { state, patches, conflicts };
}

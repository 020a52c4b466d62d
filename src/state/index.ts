export { applyPatches, applyPatchesDetailed, type ApplyPatchesOptions, type AppliedPatches } from './apply-patches.js';
export { mergeParallelPatches, type MergedPatches, type PatchConflictReport } from './merge-parallel-patches.js';
export { ImmerStateTracker, trackStateChange, type StateRecipe, type TrackedStateChange } from './immer-state-tracker.js';
export { escapePointerSegment, parseJsonPointer, toJsonPointer } from './json-pointer.js';

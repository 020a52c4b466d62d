import { enablePatches, freeze, Immer, type Draft, type Patch } from 'immer';

import type { JsonPatchOperation } from '../types/json-patch.js';
import { toJsonPointer } from './json-pointer.js';

enablePatches();
const immer = new Immer({ autoFreeze: true });

/**
 * A draft mutation, as passed to `ToolContext.updateState`.
 *
 * @example
 * const recipe: StateRecipe<{ notes: string[] }> = (draft) => { draft.notes.push('hi'); };
 */
export type StateRecipe<TState> = (draft: Draft<TState>) => void;

/**
 * The result of one tracked mutation: the new (frozen) state and the RFC 6902 patches that produce it.
 *
 * @example
 * const { state, patches }: TrackedStateChange<{ n: number }> = trackStateChange({ n: 1 }, (draft) => { draft.n = 2; });
 */
export interface TrackedStateChange<TState> {
  state: TState;
  patches: JsonPatchOperation[];
}

/**
 * Tracks draft mutations of an agent's custom state and records them as RFC 6902 patches (Immer
 * `produceWithPatches`, paths converted to JSON Pointers). Array appends become `add` to `…/-` so that
 * appends of tools running in parallel compose.
 *
 * The tracker works on its own copy of the base state; states it returns are frozen.
 *
 * @example
 * const tracker = new ImmerStateTracker({ notes: [] as string[] });
 * tracker.update((draft) => { draft.notes.push('a'); });
 * tracker.getPatches(); // [{ op: 'add', path: '/notes/-', value: 'a' }]
 */
export class ImmerStateTracker<TState> {
  private state: TState;
  private readonly patches: JsonPatchOperation[] = [];

  constructor(base: TState) {
    this.state = freeze(structuredClone(base), true);
  }

  /** Run `recipe` against the current state; returns the new state and this mutation's patches. */
  update(recipe: StateRecipe<TState>): TrackedStateChange<TState> {
    const [next, immerPatches] = immer.produceWithPatches(this.state, recipe);
    const patches = immerPatches.map(toJsonPatchOperation);
    this.state = next;
    this.patches.push(...patches);
    return { state: this.state, patches };
  }

  /** The current (frozen) state. */
  getState(): TState {
    return this.state;
  }

  /** Every patch recorded since construction, in order; applied to the base they give `getState()`. */
  getPatches(): JsonPatchOperation[] {
    return [...this.patches];
  }

  /** True once any update changed the state. */
  hasChanges(): boolean {
    return this.patches.length > 0;
  }
}

/**
 * Run one draft mutation against `base` and return the new state and its RFC 6902 patches.
 *
 * @example
 * trackStateChange({ items: [1] }, (draft) => { draft.items.push(2); }).patches;
 * // [{ op: 'add', path: '/items/-', value: 2 }]
 */
export function trackStateChange<TState>(base: TState, recipe: StateRecipe<TState>): TrackedStateChange<TState> {
  return new ImmerStateTracker(base).update(recipe);
}

/**
 * Convert one Immer patch to RFC 6902. Immer only ever adds array elements at the end (numeric index equal
 * to the length), so a numeric final segment on `add` is an append and becomes `-`.
 */
function toJsonPatchOperation(patch: Patch): JsonPatchOperation {
  const last = patch.path.at(-1);
  if (patch.op === 'add' && typeof last === 'number') {
    return { op: 'add', path: `${toJsonPointer(patch.path.slice(0, -1))}/-`, value: patch.value };
  }
  const path = toJsonPointer(patch.path);
  return patch.op === 'remove' ? { op: 'remove', path } : { op: patch.op, path, value: patch.value };
}

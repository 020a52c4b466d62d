import { InvalidArgumentError } from '../errors/index.js';
import type { JsonPatchOperation } from '../types/json-patch.js';
import { applyOperation, PatchConflict, type ReplaceMissing } from './patch-operations.js';

/**
 * Options of `applyPatches`.
 *
 * @example
 * const options: ApplyPatchesOptions = { onConflict: 'skip' };
 */
export interface ApplyPatchesOptions {
  /**
   * What to do with an operation that does not fit the document (missing path, index out of range):
   * `'throw'` (RFC 6902, default) or `'skip'` it and go on. A failed `test` operation always throws.
   */
  onConflict?: 'throw' | 'skip';
}

/**
 * The outcome of applying a patch list leniently: the new document, the operations applied and the indexes
 * of the operations skipped as conflicts.
 *
 * @example
 * const { state, skipped } = applyPatchesDetailed(base, patches, 'skip');
 */
export interface AppliedPatches<T> {
  state: T;
  applied: JsonPatchOperation[];
  skipped: number[];
}

/**
 * Apply RFC 6902 operations to a JSON document and return the new document. Pure: the input is never
 * mutated and unchanged subtrees are shared with it; inserted values are copied.
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT` when an operation is malformed, a `test` fails, or (with
 *   `onConflict: 'throw'`) an operation does not fit the document. The message names the operation index
 *   and kind, never a value.
 * @example
 * applyPatches({ items: [1] }, [{ op: 'add', path: '/items/-', value: 2 }]); // { items: [1, 2] }
 */
export function applyPatches<T>(state: T, patches: JsonPatchOperation[], options: ApplyPatchesOptions = {}): T {
  return applyPatchesDetailed(state, patches, options.onConflict ?? 'throw').state;
}

/**
 * Like `applyPatches`, but reports which operations were applied and which were skipped.
 *
 * @example
 * const { skipped } = applyPatchesDetailed({}, [{ op: 'remove', path: '/gone' }], 'skip'); // skipped: [0]
 */
export function applyPatchesDetailed<T>(
  state: T,
  patches: readonly JsonPatchOperation[],
  onConflict: 'throw' | 'skip',
  replaceMissing: ReplaceMissing = onConflict === 'skip' ? 'set' : 'conflict',
): AppliedPatches<T> {
  if (!Array.isArray(patches)) throw new InvalidArgumentError('patches must be an array of JSON Patch operations.');
  let document: unknown = state;
  const applied: JsonPatchOperation[] = [];
  const skipped: number[] = [];
  patches.forEach((operation, index) => {
    assertWellFormed(operation, index);
    try {
      document = applyOperation(document, operation, replaceMissing);
      applied.push(operation);
    } catch (error) {
      if (!(error instanceof PatchConflict)) throw error;
      if (onConflict === 'skip' && operation.op !== 'test') {
        skipped.push(index);
        return;
      }
      throw new InvalidArgumentError(`JSON Patch operation ${index} (${operation.op}) cannot be applied: ${error.reason}.`, {
        operationIndex: index,
        op: operation.op,
      });
    }
  });
  return { state: document as T, applied, skipped };
}

function assertWellFormed(operation: JsonPatchOperation, index: number): void {
  const candidate = operation as { op?: unknown; path?: unknown; from?: unknown };
  const valid =
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.path === 'string' &&
    ['add', 'remove', 'replace', 'move', 'copy', 'test'].includes(candidate.op as string) &&
    ((candidate.op !== 'move' && candidate.op !== 'copy') || typeof candidate.from === 'string');
  if (!valid) {
    throw new InvalidArgumentError(`JSON Patch operation ${index} is malformed: it needs a known op, a string path (and from).`, {
      operationIndex: index,
    });
  }
}

import type { JsonPatchOperation } from '../types/json-patch.js';
import { parseJsonPointer } from './json-pointer.js';

/**
 * @internal Thrown when an operation does not fit the document (missing path, bad index); not public.
 *
 * @example
 * throw new PatchConflict('the target path does not exist');
 */
export class PatchConflict extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'PatchConflict';
  }
}

/**
 * @internal How `replace` treats a missing object member: reject it (RFC 6902) or set it (merge semantics).
 *
 * @example
 * const strict: ReplaceMissing = 'conflict';
 */
export type ReplaceMissing = 'conflict' | 'set';

type Container = Record<string, unknown> | unknown[];

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/**
 * @internal Apply one operation copy-on-write; the input document is never mutated.
 *
 * @example
 * applyOperation({ a: [] }, { op: 'add', path: '/a/-', value: 1 }, 'conflict'); // { a: [1] }
 */
export function applyOperation(root: unknown, operation: JsonPatchOperation, replaceMissing: ReplaceMissing): unknown {
  const tokens = parseJsonPointer(operation.path);
  switch (operation.op) {
    case 'add':
      return addAt(root, tokens, clone(operation.value));
    case 'remove':
      return removeAt(root, tokens);
    case 'replace':
      return replaceAt(root, tokens, clone(operation.value), replaceMissing);
    case 'move': {
      if (operation.from === operation.path) return root;
      if (operation.path.startsWith(`${operation.from}/`)) throw new PatchConflict('a value cannot be moved into itself');
      const fromTokens = parseJsonPointer(operation.from);
      const value = readAt(root, fromTokens);
      return addAt(removeAt(root, fromTokens), tokens, value);
    }
    case 'copy':
      return addAt(root, tokens, clone(readAt(root, parseJsonPointer(operation.from))));
    case 'test':
      if (!deepEqual(readAt(root, tokens), operation.value)) throw new PatchConflict('the test value does not match');
      return root;
    default:
      throw new PatchConflict('the operation is not one of add, remove, replace, move, copy, test');
  }
}

function addAt(root: unknown, tokens: string[], value: unknown): unknown {
  const key = tokens.at(-1);
  if (key === undefined) return value;
  return updateParent(root, tokens.slice(0, -1), (parent) => {
    if (Array.isArray(parent)) {
      const index = key === '-' ? parent.length : arrayIndex(key);
      if (index > parent.length) throw new PatchConflict('the array index is past the end');
      parent.splice(index, 0, value);
    } else {
      setOwn(parent, key, value);
    }
  });
}

function removeAt(root: unknown, tokens: string[]): unknown {
  const key = tokens.at(-1);
  if (key === undefined) throw new PatchConflict('the document root cannot be removed');
  return updateParent(root, tokens.slice(0, -1), (parent) => {
    if (Array.isArray(parent)) {
      const index = arrayIndex(key);
      if (index >= parent.length) throw new PatchConflict('the array index does not exist');
      parent.splice(index, 1);
    } else {
      if (!Object.hasOwn(parent, key)) throw new PatchConflict('the target path does not exist');
      delete parent[key];
    }
  });
}

function replaceAt(root: unknown, tokens: string[], value: unknown, replaceMissing: ReplaceMissing): unknown {
  const key = tokens.at(-1);
  if (key === undefined) return value;
  return updateParent(root, tokens.slice(0, -1), (parent) => {
    if (Array.isArray(parent)) {
      const index = arrayIndex(key);
      if (index >= parent.length) throw new PatchConflict('the array index does not exist');
      parent[index] = value;
    } else {
      if (!Object.hasOwn(parent, key) && replaceMissing === 'conflict') throw new PatchConflict('the target path does not exist');
      setOwn(parent, key, value);
    }
  });
}

/** Copy every container on the path to the parent, then let `mutate` change the (copied) parent. */
function updateParent(node: unknown, parentTokens: string[], mutate: (parent: Container) => void): unknown {
  const copy = copyContainer(node);
  const [head, ...rest] = parentTokens;
  if (head === undefined) {
    mutate(copy);
    return copy;
  }
  const child = readChild(copy, head);
  const updated = updateParent(child, rest, mutate);
  if (Array.isArray(copy)) copy[arrayIndex(head)] = updated;
  else setOwn(copy, head, updated);
  return copy;
}

function readAt(root: unknown, tokens: string[]): unknown {
  let node = root;
  for (const token of tokens) node = readChild(asContainer(node), token);
  return node;
}

function readChild(container: Container, token: string): unknown {
  if (Array.isArray(container)) {
    const index = arrayIndex(token);
    if (index >= container.length) throw new PatchConflict('the array index does not exist');
    return container[index];
  }
  if (!Object.hasOwn(container, token)) throw new PatchConflict('the target path does not exist');
  return container[token];
}

function asContainer(node: unknown): Container {
  if (typeof node !== 'object' || node === null) throw new PatchConflict('the path goes through a value that is not an object or array');
  return node as Container;
}

function copyContainer(node: unknown): Container {
  const container = asContainer(node);
  return Array.isArray(container) ? [...container] : { ...container };
}

function arrayIndex(token: string): number {
  if (!ARRAY_INDEX.test(token)) throw new PatchConflict('an array index must be a non-negative integer without leading zeros');
  return Number(token);
}

/** Assign an own data property, also for "__proto__" (plain assignment would change the prototype). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

function clone<T>(value: T): T {
  return value === undefined ? value : structuredClone(value);
}

/**
 * @internal Structural equality of JSON values.
 *
 * @example
 * deepEqual({ a: [1] }, { a: [1] }); // true
 */
export function deepEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left) && Array.isArray(right)) {
    return left.length === right.length && left.every((item, index) => deepEqual(item, right[index]));
  }
  const leftKeys = Object.keys(left);
  const rightRecord = right as Record<string, unknown>;
  return (
    leftKeys.length === Object.keys(right).length &&
    leftKeys.every((key) => Object.hasOwn(rightRecord, key) && deepEqual((left as Record<string, unknown>)[key], rightRecord[key]))
  );
}

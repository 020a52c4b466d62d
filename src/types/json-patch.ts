/**
 * One RFC 6902 JSON Patch operation, as produced by the Immer state tracker.
 *
 * @example
 * const patch: JsonPatchOperation = { op: 'add', path: '/notes/-', value: 'milk' };
 */
export type JsonPatchOperation =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'move'; from: string; path: string }
  | { op: 'copy'; from: string; path: string }
  | { op: 'test'; path: string; value: unknown };

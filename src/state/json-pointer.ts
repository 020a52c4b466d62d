import { InvalidArgumentError } from '../errors/index.js';

/**
 * Escape one JSON Pointer reference token (RFC 6901): `~` becomes `~0`, `/` becomes `~1`.
 *
 * @example
 * escapePointerSegment('a/b~c'); // 'a~1b~0c'
 */
export function escapePointerSegment(segment: string | number): string {
  return String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Build a JSON Pointer from path segments (`[]` is the whole document, `''`).
 *
 * @example
 * toJsonPointer(['items', 0, 'a/b']); // '/items/0/a~1b'
 */
export function toJsonPointer(path: readonly (string | number)[]): string {
  return path.map((segment) => `/${escapePointerSegment(segment)}`).join('');
}

/**
 * Split a JSON Pointer into unescaped reference tokens (`''` → `[]`).
 *
 * @throws InvalidArgumentError when the pointer is not empty and does not start with `/`, or has a bad `~` escape.
 * @example
 * parseJsonPointer('/items/0/a~1b'); // ['items', '0', 'a/b']
 */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) {
    throw new InvalidArgumentError('A JSON Pointer must be empty or start with "/".');
  }
  return pointer
    .slice(1)
    .split('/')
    .map((token) => {
      if (/~(?![01])/.test(token)) throw new InvalidArgumentError('A JSON Pointer contains "~" not followed by 0 or 1.');
      return token.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

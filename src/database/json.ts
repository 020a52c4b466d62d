import { InvalidArgumentError } from '../errors/index.js';

/**
 * Serialize `value` to JSON text, or throw InvalidArgumentError naming `field` (never the value) when it is
 * not JSON-serializable (a BigInt, a cycle, a throwing `toJSON`). `undefined` serializes as `null`.
 *
 * @example
 * const text = toJsonText({ a: 1 }, 'customState'); // '{"a":1}'
 */
export function toJsonText(value: unknown, field: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new InvalidArgumentError(`${field} must be JSON-serializable (no BigInt values, cycles or throwing toJSON).`, {
      field,
      reason: error instanceof Error ? error.name : 'unknown',
    });
  }
  return text ?? 'null';
}

/**
 * Deep-copy a JSON value the way a database round trip would (undefined properties dropped, Dates become
 * strings); throws InvalidArgumentError naming `field` when the value is not JSON-serializable.
 *
 * @example
 * const copy = cloneJson({ items: [1, 2] }, 'customState');
 */
export function cloneJson<T>(value: T, field: string): T {
  if (value === undefined) return value;
  return JSON.parse(toJsonText(value, field)) as T;
}

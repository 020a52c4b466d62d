import { assertStoredId } from './validation.js';

/**
 * Checks one argument of a method; throws InvalidArgumentError (`INVALID_ARGUMENT`) when it is not acceptable.
 *
 * @example
 * const runId: ArgumentRule = idArgument('runId');
 */
export type ArgumentRule = (value: unknown) => void;

/**
 * The rules of a method's arguments, by position (`undefined`: that argument is not checked; `[]`: none is).
 *
 * @example
 * const getRun: MethodArgumentRules = [idArgument('sessionId'), idArgument('runId')];
 */
export type MethodArgumentRules = ReadonlyArray<ArgumentRule | undefined>;

/**
 * A required id argument (see `assertStoredId`).
 *
 * @example
 * idArgument('runId')('run-1'); // ok
 */
export function idArgument(field: string): ArgumentRule {
  return (value) => assertStoredId(value, field);
}

/**
 * An id argument that may be absent (`undefined` or `null`, which some writes use to clear a field).
 *
 * @example
 * optionalIdArgument('stepId')(undefined); // ok
 */
export function optionalIdArgument(field: string): ArgumentRule {
  return (value) => {
    if (value !== undefined && value !== null) assertStoredId(value, field);
  };
}

/**
 * Rules for fields of an object argument; anything that is not an object is left to the method.
 *
 * @example
 * objectFields({ runId: idArgument('runId') })({ runId: 'run-1' }); // ok
 */
export function objectFields(rules: Readonly<Record<string, ArgumentRule>>): ArgumentRule {
  return (value) => {
    if (typeof value !== 'object' || value === null) return;
    for (const [key, rule] of Object.entries(rules)) rule((value as Record<string, unknown>)[key]);
  };
}

/**
 * A rule for every item of an array argument; anything that is not an array is left to the method.
 *
 * @example
 * everyItem(objectFields({ id: optionalIdArgument('messageId') }))([{ id: 'run-1:0:0' }]); // ok
 */
export function everyItem(rule: ArgumentRule): ArgumentRule {
  return (value) => {
    if (Array.isArray(value)) for (const item of value) rule(item);
  };
}

/**
 * Check the arguments of every public method of a class at its boundary, once for all implementations of an
 * interface: each method of `target`'s prototype checks its arguments with `rules[name]`, or with `defaultRules`
 * when it has no entry (so a method added later is checked as the interface's methods usually are). A failed
 * check rejects the returned promise before the method runs; the guarded methods must return promises. Accessors
 * and `#private` methods are left alone.
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT` (as a rejection) from a failed rule.
 * @example
 * guardArguments(InMemoryStateStore, { close: [] }, [idArgument('sessionId')]);
 */
export function guardArguments(
  target: abstract new (...args: never[]) => object,
  rules: Readonly<Record<string, MethodArgumentRules>>,
  defaultRules: MethodArgumentRules,
): void {
  const prototype = target.prototype as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(prototype)) {
    const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
    const method: unknown = descriptor?.value;
    if (name === 'constructor' || typeof method !== 'function') continue;
    const checks = Object.hasOwn(rules, name) ? (rules[name] ?? []) : defaultRules;
    if (checks.length === 0) continue;
    const guarded = function (this: unknown, ...args: unknown[]): unknown {
      try {
        checks.forEach((check, index) => check?.(args[index]));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      return (method as (...values: unknown[]) => unknown).apply(this, args);
    };
    Object.defineProperty(guarded, 'name', { value: name });
    Object.defineProperty(prototype, name, { ...descriptor, value: guarded });
  }
}

import { clipText, redactSecrets } from './redact-secrets.js';

/** Longest rendering of a thrown `Error` for the model (`Name (code): message`). */
export const MAX_THROWN_ERROR_TEXT = 500;
/** Longest rendering of any other thrown value (a string, a plain object's JSON, …) for the model. */
export const MAX_THROWN_VALUE_TEXT = 200;

/**
 * What a tool threw, rendered for the model that called the tool (its own tool, so it may read the message):
 * an `Error` as `Name (code): message` (at most {@link MAX_THROWN_ERROR_TEXT} characters), a string as itself, a
 * plain object or array as JSON, anything else as `String(value)` (at most {@link MAX_THROWN_VALUE_TEXT}).
 * Secret-looking tokens are redacted. Never the form for streams, stores or HTTP answers: use `safeErrorText`.
 *
 * @example
 * renderThrown({ reason: 'quota exceeded', retryAfter: 30 }); // '{"reason":"quota exceeded","retryAfter":30}'
 * renderThrown(new RangeError('limit must be ≤ 10')); // 'RangeError: limit must be ≤ 10'
 */
export function renderThrown(value: unknown): string {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    const head = typeof code === 'string' ? `${value.name} (${code})` : value.name;
    return bounded(`${head}: ${value.message}`, MAX_THROWN_ERROR_TEXT);
  }
  return bounded(plainText(value), MAX_THROWN_VALUE_TEXT);
}

function plainText(value: unknown): string {
  if (typeof value === 'string') return value.length === 0 ? '(an empty string)' : value;
  if (value === undefined) return 'undefined';
  if (typeof value === 'object' && value !== null) {
    try {
      // Only the first characters are shown: a huge object is cut before it is serialized in full.
      const json = JSON.stringify(value, boundedReplacer());
      return json === undefined ? Object.prototype.toString.call(value) : json;
    } catch {
      return Object.prototype.toString.call(value);
    }
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (typeof value === 'symbol') return value.toString();
  return value === null ? 'null' : 'a function';
}

/** A replacer that stops descending once enough text was produced (rough budget by property count). */
function boundedReplacer(): (key: string, value: unknown) => unknown {
  let budget = MAX_THROWN_VALUE_TEXT;
  return (_key, value) => {
    budget -= 1;
    if (budget < 0) return undefined;
    if (typeof value === 'string' && value.length > MAX_THROWN_VALUE_TEXT) return value.slice(0, MAX_THROWN_VALUE_TEXT);
    return typeof value === 'bigint' ? String(value) : value;
  };
}

function bounded(text: string, max: number): string {
  return clipText(redactSecrets(clipText(text, max * 4)), max);
}

import { boundedMessage } from '../../errors/safe-error.js';
import { CONSOLE_LIMITS, type ConsoleValue } from './console-api.js';

/**
 * A value as the console shows it: a string as itself, anything else as JSON text, cut to `limit` characters (never
 * inside a surrogate pair). A value JSON cannot render (a cycle, a BigInt) shows as `[unserializable]`.
 *
 * @example
 * consoleValue({ city: 'Oslo' }); // { kind: 'json', text: '{"city":"Oslo"}', truncated: false, length: 15 }
 */
export function consoleValue(value: unknown, limit: number = CONSOLE_LIMITS.valueChars): ConsoleValue {
  const kind = typeof value === 'string' ? 'text' : 'json';
  const text = typeof value === 'string' ? value : jsonText(value);
  if (text.length <= limit) return { kind, text, truncated: false, length: text.length };
  const end = isHighSurrogate(text.charCodeAt(limit - 1)) ? limit - 1 : limit;
  return { kind, text: text.slice(0, end), truncated: true, length: text.length };
}

/**
 * A stored error (already payload-free) bounded and redacted once more on its way out.
 *
 * @example
 * consoleError('LLM_CALL_FAILED: The LLM call failed (APICallError)'); // unchanged, at most 300 characters
 */
export function consoleError(error: string | undefined): string | undefined {
  return error === undefined ? undefined : boundedMessage(error);
}

function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return '[unserializable]';
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

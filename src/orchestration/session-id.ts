import { InvalidArgumentError } from '../errors/index.js';

/** The longest session id a caller may pass, in UTF-8 bytes. Ids the runtime derives (children, continuations) may be longer. */
export const MAX_SESSION_ID_BYTES = 1024;

/** C0 controls (NUL included), DEL and C1 controls. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** A lone surrogate (with the `u` flag only unpaired halves match): not encodable as UTF-8. */
const LONE_SURROGATE = /[\ud800-\udfff]/u;

const encoder = new TextEncoder();

/**
 * Check a caller-supplied session id before anything is written: a non-empty string of at most 1,024 UTF-8
 * bytes (or `maxBytes`: stores accept the longer ids the runtime derives) without NUL or other control
 * characters. The error never echoes the id.
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT` for an empty, too long or control-character id.
 * @example
 * assertValidSessionId('chat-42'); // ok
 * assertValidSessionId('a\u0000b'); // throws INVALID_ARGUMENT
 */
export function assertValidSessionId(sessionId: unknown, field = 'sessionId', maxBytes = MAX_SESSION_ID_BYTES): asserts sessionId is string {
  if (typeof sessionId !== 'string') throw new InvalidArgumentError(`${field} must be a string.`, { field });
  if (sessionId.length === 0) throw new InvalidArgumentError(`${field} must not be empty.`, { field });
  if (sessionId.length > maxBytes || encoder.encode(sessionId).length > maxBytes) {
    throw new InvalidArgumentError(`${field} is longer than ${maxBytes} bytes (UTF-8); use a shorter id, e.g. a hash of it.`, { field, maxBytes });
  }
  if (CONTROL_CHARACTERS.test(sessionId)) {
    throw new InvalidArgumentError(`${field} contains NUL or another control character; use printable characters only.`, { field });
  }
  if (LONE_SURROGATE.test(sessionId)) throw new InvalidArgumentError(`${field} is not well-formed Unicode (a lone surrogate); use valid UTF-8 text.`, { field });
}

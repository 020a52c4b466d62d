import { MAX_SESSION_ID_BYTES, assertValidSessionId } from '../orchestration/session-id.js';

/**
 * The longest stream id every manager accepts, in bytes of UTF-8 (a caller's session id).
 *
 * @example
 * Buffer.byteLength(streamId) <= MAX_STREAM_ID_BYTES; // 1,024
 */
export const MAX_STREAM_ID_BYTES = MAX_SESSION_ID_BYTES;

/**
 * Check a stream id before anything is written or read: the rules of a caller's session id
 * (`assertValidSessionId`): a non-empty string of at most 1,024 bytes of UTF-8 without NUL or other control
 * characters (NUL breaks Postgres text, newlines break logs) and without lone surrogates (two ids would meet in
 * one UTF-8 key). The error never echoes the id.
 *
 * @throws InvalidArgumentError (`INVALID_ARGUMENT`) naming the rule that failed.
 * @example
 * assertStreamId(sessionId); // before createWriter/createReader touch the backend
 */
export function assertStreamId(streamId: unknown): asserts streamId is string {
  assertValidSessionId(streamId, 'streamId', MAX_STREAM_ID_BYTES);
}

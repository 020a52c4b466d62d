import { InvalidArgumentError } from '../errors/index.js';

/** The longest stream id every manager accepts, in bytes of UTF-8. */
export const MAX_STREAM_ID_BYTES = 1_024;

// eslint-disable-next-line no-control-regex -- the point is to find control characters
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * Check a stream id before anything is written or read: a non-empty string of at most 1,024 bytes of UTF-8
 * without control characters (NUL breaks Postgres text, newlines break logs). The error never echoes the id.
 *
 * @throws InvalidArgumentError (`INVALID_ARGUMENT`) naming the rule that failed.
 * @example
 * assertStreamId(sessionId); // before createWriter/createReader touch the backend
 */
export function assertStreamId(streamId: unknown): asserts streamId is string {
  if (typeof streamId !== 'string' || streamId.length === 0) {
    throw new InvalidArgumentError('streamId must be a non-empty string.', { field: 'streamId' });
  }
  const bytes = Buffer.byteLength(streamId);
  if (bytes > MAX_STREAM_ID_BYTES) {
    throw new InvalidArgumentError(`streamId must be at most ${MAX_STREAM_ID_BYTES} bytes of UTF-8.`, { field: 'streamId', bytes });
  }
  if (CONTROL_CHARACTER.test(streamId)) {
    throw new InvalidArgumentError('streamId must not contain control characters.', { field: 'streamId' });
  }
}

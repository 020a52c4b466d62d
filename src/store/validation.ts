import { InvalidArgumentError } from '../errors/index.js';
import { assertValidSessionId, MAX_SESSION_ID_BYTES } from '../orchestration/session-id.js';
import type { CheckpointMeta } from '../types/session.js';

/**
 * The longest id a store keeps, in UTF-8 bytes: twice a caller's session id (1,024), so the ids the runtime derives
 * from one (`${root}-sub-${toolCallId}`, nested) fit. A stream's agent id (such a session id) follows the same limit.
 *
 * @example
 * Buffer.byteLength(childSessionId) <= MAX_STORED_ID_BYTES; // 2,048
 */
export const MAX_STORED_ID_BYTES = 2 * MAX_SESSION_ID_BYTES;

/**
 * Throw InvalidArgumentError unless `value` is an id a store keeps: the rules of a caller's session id
 * (`assertValidSessionId`: non-empty, no NUL or other control character, well-formed Unicode), up to
 * {@link MAX_STORED_ID_BYTES} bytes. The error names the field, never the value.
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT`.
 * @example
 * assertStoredId(runId, 'runId');
 */
export function assertStoredId(value: unknown, field: string): asserts value is string {
  assertValidSessionId(value, field, MAX_STORED_ID_BYTES);
}

/**
 * Throw InvalidArgumentError unless `value` is a non-empty string. The message names the field only.
 *
 * @example
 * assertIdentifier(sessionId, 'sessionId');
 */
export function assertIdentifier(value: unknown, field: string): asserts value is string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new InvalidArgumentError(`${field} must be a non-empty string.`, { field });
  }
}

/**
 * Throw InvalidArgumentError unless `value` is an integer ≥ 0 (or undefined when `optional`).
 *
 * @example
 * assertNonNegativeInteger(options.limit, 'limit', { optional: true });
 */
export function assertNonNegativeInteger(
  value: unknown,
  field: string,
  options: { optional?: boolean } = {},
): asserts value is number {
  if (value === undefined && options.optional === true) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new InvalidArgumentError(`${field} must be an integer greater than or equal to 0.`, { field });
  }
}

const SESSION_STATUSES: ReadonlySet<string> = new Set(['active', 'completed', 'failed', 'interrupted', 'paused']);

/**
 * Throw InvalidArgumentError unless `value` is a SessionStatus.
 *
 * @example
 * assertSessionStatus('active', 'status');
 */
export function assertSessionStatus(value: unknown, field: string): void {
  if (typeof value !== 'string' || !SESSION_STATUSES.has(value)) {
    throw new InvalidArgumentError(`${field} must be one of active, completed, failed, interrupted, paused.`, { field });
  }
}

/**
 * Throw InvalidArgumentError unless `meta` names a checkpoint id, a run id and a step count.
 *
 * @example
 * assertCheckpointMeta({ checkpointId: 'run-1:1', runId: 'run-1', stepCount: 1 });
 */
export function assertCheckpointMeta(meta: CheckpointMeta): void {
  if (typeof meta !== 'object' || meta === null) {
    throw new InvalidArgumentError('checkpointMeta must be an object.', { field: 'checkpointMeta' });
  }
  assertIdentifier(meta.checkpointId, 'checkpointId');
  assertIdentifier(meta.runId, 'runId');
  assertNonNegativeInteger(meta.stepCount, 'stepCount');
}

/**
 * The page size of `listFinishedSessions`: 1–1,000, default 100.
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT` for a limit that is not an integer in range.
 * @example
 * finishedLimit(undefined); // 100
 */
export function finishedLimit(limit: number | undefined): number {
  if (limit === undefined) return 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1_000) throw new InvalidArgumentError('limit must be an integer from 1 to 1000.', { field: 'limit' });
  return limit;
}

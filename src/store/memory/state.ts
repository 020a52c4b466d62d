import { InvalidArgumentError, StaleStateError } from '../../errors/index.js';
import type { JsonPatchOperation } from '../../types/json-patch.js';
import type {
  CompareAndSetOptions,
  CompareAndSetResult,
  InterruptFlagResult,
  SessionStateWrite,
  SessionStatus,
} from '../../types/session.js';
import { cloneJson } from '../../database/json.js';
import { applySessionWrite, mergeMetadata, statusWrite, type StatusContext } from '../session-write.js';
import { applyCustomStatePatches } from '../staged-patches.js';
import type { MemoryData } from './memory-data.js';

/**
 * Write fields of a session (see `applySessionWrite`), honouring `expectedVersion`.
 *
 * @example
 * saveMemoryState(data, 's1', { status: 'completed' }, { expectedVersion: 3 });
 */
export function saveMemoryState(
  data: MemoryData,
  sessionId: string,
  write: SessionStateWrite,
  options: { expectedVersion?: number } = {},
): { newVersion: number } {
  const record = data.require(sessionId);
  if (options.expectedVersion !== undefined && options.expectedVersion !== record.state.version) {
    throw new StaleStateError(sessionId, options.expectedVersion, record.state.version);
  }
  record.state = applySessionWrite(record.state, write, Date.now());
  return { newVersion: record.state.version };
}

/**
 * Apply RFC 6902 patches to customState (all or nothing).
 *
 * @example
 * mergeMemoryCustomState(data, 's1', [{ op: 'add', path: '/count', value: 1 }]);
 */
export function mergeMemoryCustomState(data: MemoryData, sessionId: string, patches: JsonPatchOperation[]): { newVersion: number } {
  const record = data.require(sessionId);
  if (!Array.isArray(patches)) throw new InvalidArgumentError('patches must be an array of JSON Patch operations.', { field: 'patches' });
  const customState = applyCustomStatePatches(record.state.customState, cloneJson(patches, 'patches'));
  record.state = applySessionWrite(record.state, { customState }, Date.now());
  return { newVersion: record.state.version };
}

/**
 * Unconditional status write with optional interrupt context, error and failure reason.
 *
 * @example
 * updateMemoryStatus(data, 's1', 'failed', { error: 'Tool crashed', failureReason: 'parent_suspended' });
 */
export function updateMemoryStatus(data: MemoryData, sessionId: string, status: SessionStatus, context: StatusContext = {}): void {
  const record = data.require(sessionId);
  record.state = applySessionWrite(record.state, statusWrite(status, context), Date.now());
}

/**
 * Compare-and-set the status (and version when `options.expectedVersion` is given).
 *
 * @example
 * const result = compareAndSetMemoryStatus(data, 's1', ['active'], 'interrupted');
 */
export function compareAndSetMemoryStatus(
  data: MemoryData,
  sessionId: string,
  expectedStatuses: readonly SessionStatus[],
  newStatus: SessionStatus,
  options: CompareAndSetOptions = {},
): CompareAndSetResult {
  const record = data.find(sessionId);
  if (record === undefined) return { ok: false, currentStatus: null, currentVersion: 0 };
  const current = record.state;
  const versionMatches = options.expectedVersion === undefined || options.expectedVersion === current.version;
  if (!expectedStatuses.includes(current.status) || !versionMatches) {
    return { ok: false, currentStatus: current.status, currentVersion: current.version };
  }
  record.state = applySessionWrite(current, statusWrite(newStatus, options), Date.now());
  return { ok: true, newVersion: record.state.version };
}

/**
 * Add one to a counter field and bump the version; returns the new counter value.
 *
 * @example
 * const stepCount = incrementMemoryCounter(data, 's1', 'stepCount');
 */
export function incrementMemoryCounter(data: MemoryData, sessionId: string, field: 'stepCount' | 'resumeCount'): number {
  const record = data.require(sessionId);
  record.state = applySessionWrite(record.state, { [field]: record.state[field] + 1 }, Date.now());
  return record.state[field];
}

/**
 * Merge keys into metadata (`null` deletes a key).
 *
 * @example
 * patchMemoryMetadata(data, 's1', { dbosWorkflowId: 'wf-1' });
 */
export function patchMemoryMetadata(data: MemoryData, sessionId: string, patch: Record<string, string | null>): void {
  const record = data.require(sessionId);
  record.state = applySessionWrite(record.state, { metadata: mergeMetadata(record.state.metadata, patch) }, Date.now());
}

/**
 * Set the durable interrupt flag (the latest reason wins).
 *
 * @example
 * setMemoryInterruptFlag(data, 's1', 'user clicked Stop');
 */
export function setMemoryInterruptFlag(data: MemoryData, sessionId: string, reason?: string): void {
  data.require(sessionId).interrupt = reason === undefined ? {} : { reason };
}

/**
 * Whether the interrupt flag is set (left as is).
 *
 * @example
 * if (isMemoryInterruptRequested(data, 's1')) stopStreaming();
 */
export function isMemoryInterruptRequested(data: MemoryData, sessionId: string): boolean {
  return data.sessions.get(sessionId)?.interrupt != null;
}

/**
 * Atomically read and clear the interrupt flag.
 *
 * @example
 * const { interrupted, reason } = checkMemoryInterruptFlag(data, 's1');
 */
export function checkMemoryInterruptFlag(data: MemoryData, sessionId: string): InterruptFlagResult {
  const record = data.find(sessionId);
  if (record?.interrupt == null) return { interrupted: false };
  const { reason } = record.interrupt;
  record.interrupt = null;
  return reason === undefined ? { interrupted: true } : { interrupted: true, reason };
}

/**
 * Read the interrupt flag and its reason without clearing it.
 *
 * @example
 * const { interrupted, reason } = readMemoryInterruptFlag(data, 's1');
 */
export function readMemoryInterruptFlag(data: MemoryData, sessionId: string): InterruptFlagResult {
  const interrupt = data.find(sessionId)?.interrupt;
  if (interrupt == null) return { interrupted: false };
  return interrupt.reason === undefined ? { interrupted: true } : { interrupted: true, reason: interrupt.reason };
}

/**
 * Clear the interrupt flag without reading it.
 *
 * @example
 * clearMemoryInterruptFlag(data, 's1');
 */
export function clearMemoryInterruptFlag(data: MemoryData, sessionId: string): void {
  const record = data.find(sessionId);
  if (record !== undefined) record.interrupt = null;
}

import { InvalidArgumentError } from '../../errors/index.js';
import type { Checkpoint, CheckpointMeta } from '../../types/session.js';
import { cloneJson } from '../../database/json.js';
import { assertCheckpointMeta } from '../validation.js';
import type { MemoryData, MemorySessionRecord } from './memory-data.js';

/**
 * The checkpoint `checkpointId` of a record; throws InvalidArgumentError when it does not exist.
 *
 * @example
 * const checkpoint = resolveCheckpoint(record, 'run-1:2');
 */
export function resolveCheckpoint(record: MemorySessionRecord, checkpointId: string): Checkpoint {
  const checkpoint = record.checkpoints.find((candidate) => candidate.id === checkpointId);
  if (checkpoint === undefined) {
    throw new InvalidArgumentError('checkpointId does not name a checkpoint of the source session.', { field: 'checkpointId' });
  }
  return checkpoint;
}

/**
 * Snapshot the current customState and message count; a checkpoint id that exists is returned unchanged.
 *
 * @example
 * createMemoryCheckpoint(data, 's1', { checkpointId: 'run-1:1', runId: 'run-1', stepCount: 1 });
 */
export function createMemoryCheckpoint(data: MemoryData, sessionId: string, meta: CheckpointMeta): Checkpoint {
  assertCheckpointMeta(meta);
  const record = data.require(sessionId);
  const existing = record.checkpoints.find((candidate) => candidate.id === meta.checkpointId);
  if (existing !== undefined) return cloneJson(existing, 'checkpoint');
  const now = Date.now();
  const checkpoint: Checkpoint = {
    id: meta.checkpointId,
    sessionId,
    runId: meta.runId,
    stepCount: meta.stepCount,
    messageCount: record.messages.length,
    customState: cloneJson(record.state.customState, 'customState'),
    createdAt: now,
  };
  record.checkpoints.push(checkpoint);
  record.state = { ...record.state, checkpointId: checkpoint.id, checkpointedAt: now, checkpointSource: 'save', version: record.state.version + 1, updatedAt: now };
  return cloneJson(checkpoint, 'checkpoint');
}

/**
 * The checkpoint the session points at; else the most recently written one; else null.
 *
 * @example
 * const latest = getLatestMemoryCheckpoint(data, 's1');
 */
export function getLatestMemoryCheckpoint(data: MemoryData, sessionId: string): Checkpoint | null {
  const record = data.find(sessionId);
  if (record === undefined) return null;
  const pointed = record.checkpoints.find((candidate) => candidate.id === record.state.checkpointId);
  const latest = pointed ?? record.checkpoints.at(-1);
  return latest === undefined ? null : cloneJson(latest, 'checkpoint');
}

/**
 * One checkpoint by id, or null.
 *
 * @example
 * const checkpoint = getMemoryCheckpoint(data, 's1', 'run-1:1');
 */
export function getMemoryCheckpoint(data: MemoryData, sessionId: string, checkpointId: string): Checkpoint | null {
  const found = data.find(sessionId)?.checkpoints.find((candidate) => candidate.id === checkpointId);
  return found === undefined ? null : cloneJson(found, 'checkpoint');
}

/**
 * Every checkpoint of the session in write order.
 *
 * @example
 * const checkpoints = listMemoryCheckpoints(data, 's1');
 */
export function listMemoryCheckpoints(data: MemoryData, sessionId: string): Checkpoint[] {
  return cloneJson(data.find(sessionId)?.checkpoints ?? [], 'checkpoints');
}

import type { StagedChanges } from '../../types/session.js';
import { cloneJson } from '../../database/json.js';
import { applySessionWrite } from '../session-write.js';
import { applyStagedChanges } from '../staged-patches.js';
import { assertIdentifier } from '../validation.js';
import type { MemoryData, MemorySessionRecord, MemoryStagedRow } from './memory-data.js';

/**
 * Upsert one tool's staged patches keyed by (stepId, stagingKey); a retry keeps the original order.
 *
 * @example
 * stageMemoryChanges(data, 's1', { stepId: 'r1:1', stagingKey: 'call-1', patches });
 */
export function stageMemoryChanges(data: MemoryData, sessionId: string, changes: StagedChanges): void {
  assertIdentifier(changes.stepId, 'stepId');
  assertIdentifier(changes.stagingKey, 'stagingKey');
  const patches = cloneJson(changes.patches, 'patches');
  const record = data.require(sessionId);
  const existing = record.staging.find((row) => row.stepId === changes.stepId && row.stagingKey === changes.stagingKey);
  if (existing !== undefined) {
    existing.patches = patches;
    return;
  }
  record.staging.push({ stepId: changes.stepId, stagingKey: changes.stagingKey, patches, position: data.nextPosition(), createdAt: Date.now() });
}

/**
 * The staged rows of a record for `stepId` (every step when omitted), in staging order.
 *
 * @example
 * const rows = stagedRowsOf(record, 'r1:1');
 */
export function stagedRowsOf(record: MemorySessionRecord, stepId?: string): MemoryStagedRow[] {
  return record.staging.filter((row) => stepId === undefined || row.stepId === stepId).sort((a, b) => a.position - b.position);
}

/**
 * Staged changes as callers see them (`order` is 1-based within each step).
 *
 * @example
 * const staged = getMemoryStagedChanges(data, 's1', 'r1:1');
 */
export function getMemoryStagedChanges(data: MemoryData, sessionId: string, stepId?: string): StagedChanges[] {
  const record = data.find(sessionId);
  if (record === undefined) return [];
  const counters = new Map<string, number>();
  return stagedRowsOf(record, stepId).map((row) => {
    const order = (counters.get(row.stepId) ?? 0) + 1;
    counters.set(row.stepId, order);
    return { stepId: row.stepId, stagingKey: row.stagingKey, patches: cloneJson(row.patches, 'patches'), order, createdAt: row.createdAt };
  });
}

/**
 * Apply a step's staged patches to customState and delete them; no rows leaves the session unchanged.
 *
 * @example
 * const { newVersion } = promoteMemoryStaging(data, 's1', 'r1:1');
 */
export function promoteMemoryStaging(data: MemoryData, sessionId: string, stepId: string): { newVersion: number } {
  const record = data.require(sessionId);
  const rows = stagedRowsOf(record, stepId);
  if (rows.length === 0) return { newVersion: record.state.version };
  const customState = applyStagedChanges(record.state.customState, rows);
  record.state = applySessionWrite(record.state, { customState }, Date.now());
  record.staging = record.staging.filter((row) => row.stepId !== stepId);
  return { newVersion: record.state.version };
}

/**
 * Delete staged rows of `stepId` (every step when omitted); returns how many went.
 *
 * @example
 * discardMemoryStaging(data, 's1', 'r1:1');
 */
export function discardMemoryStaging(data: MemoryData, sessionId: string, stepId?: string): number {
  return removeStaged(data, sessionId, (row) => stepId === undefined || row.stepId === stepId);
}

/**
 * Delete staged rows of every step except `keepStepId`; returns how many went.
 *
 * @example
 * const removed = cleanupMemoryOrphanedStaging(data, 's1', 'r2:1');
 */
export function cleanupMemoryOrphanedStaging(data: MemoryData, sessionId: string, keepStepId?: string): number {
  return removeStaged(data, sessionId, (row) => row.stepId !== keepStepId);
}

function removeStaged(data: MemoryData, sessionId: string, remove: (row: MemoryStagedRow) => boolean): number {
  const record = data.find(sessionId);
  if (record === undefined) return 0;
  const before = record.staging.length;
  record.staging = record.staging.filter((row) => !remove(row));
  return before - record.staging.length;
}

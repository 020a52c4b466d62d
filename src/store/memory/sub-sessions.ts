import { InvalidArgumentError } from '../../errors/index.js';
import type { SubSessionRef } from '../../types/session.js';
import { cloneJson } from '../../database/json.js';
import { applySubSessionRefPatch, prepareSubSessionRef, type SubSessionRefPatch } from '../record-updates.js';
import type { MemoryData } from './memory-data.js';

/**
 * Insert refs in order; an existing subSessionId keeps its stored ref.
 *
 * @example
 * addMemorySubSessionRefs(data, 'parent', [ref]);
 */
export function addMemorySubSessionRefs(data: MemoryData, sessionId: string, refs: SubSessionRef[]): void {
  const prepared = refs.map(prepareSubSessionRef);
  if (prepared.length === 0) return;
  const record = data.require(sessionId);
  for (const ref of prepared) {
    if (!record.subSessionRefs.some((existing) => existing.subSessionId === ref.subSessionId)) record.subSessionRefs.push(ref);
  }
}

/**
 * Patch one ref; throws InvalidArgumentError when the session has no ref with that id.
 *
 * @example
 * updateMemorySubSessionRef(data, 'parent', 'child', { status: 'completed', completionDelivered: true });
 */
export function updateMemorySubSessionRef(data: MemoryData, sessionId: string, subSessionId: string, patch: SubSessionRefPatch): void {
  const record = data.require(sessionId);
  const index = record.subSessionRefs.findIndex((ref) => ref.subSessionId === subSessionId);
  const ref = record.subSessionRefs[index];
  if (ref === undefined) throw new InvalidArgumentError('subSessionId does not name a sub-session ref of this session.', { field: 'subSessionId' });
  record.subSessionRefs[index] = applySubSessionRefPatch(ref, patch, Date.now());
}

/**
 * Every ref in insertion order.
 *
 * @example
 * const refs = getMemorySubSessionRefs(data, 'parent');
 */
export function getMemorySubSessionRefs(data: MemoryData, sessionId: string): SubSessionRef[] {
  return cloneJson(data.find(sessionId)?.subSessionRefs ?? [], 'subSessionRefs');
}

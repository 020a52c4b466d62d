import { SessionNotFoundError } from '../../errors/index.js';
import type { StoredMessage } from '../../types/message.js';
import type { Checkpoint, RunRecord, SessionState, SubSessionRef } from '../../types/session.js';
import type { JsonPatchOperation } from '../../types/json-patch.js';
import { assertIdentifier } from '../validation.js';

/**
 * One staged row as the in-memory store keeps it.
 *
 * @example
 * const row: MemoryStagedRow = { stepId: 'r1:1', stagingKey: 'call-1', patches: [], position: 1, createdAt: Date.now() };
 */
export interface MemoryStagedRow {
  stepId: string;
  stagingKey: string;
  patches: JsonPatchOperation[];
  /** Global insertion counter; orders rows like the Postgres identity column. */
  position: number;
  createdAt: number;
}

/**
 * Everything the in-memory store holds for one session. Values are private deep copies.
 *
 * @example
 * const record: MemorySessionRecord = emptyRecord(state);
 */
export interface MemorySessionRecord {
  state: SessionState;
  interrupt: { reason?: string } | null;
  messages: StoredMessage[];
  runs: RunRecord[];
  /** In write order. */
  checkpoints: Checkpoint[];
  subSessionRefs: SubSessionRef[];
  staging: MemoryStagedRow[];
}

/**
 * The in-memory store's tables: a map of session records plus an insertion counter. Every operation on it
 * is synchronous, so each store method is atomic (no other call interleaves).
 *
 * @example
 * const data = new MemoryData();
 * const record = data.require('s1'); // throws SessionNotFoundError when absent
 */
export class MemoryData {
  readonly sessions = new Map<string, MemorySessionRecord>();
  private position = 0;

  /** The next insertion position (1, 2, 3 …). */
  nextPosition(): number {
    this.position += 1;
    return this.position;
  }

  /** The record of `sessionId`, or undefined. */
  find(sessionId: string): MemorySessionRecord | undefined {
    assertIdentifier(sessionId, 'sessionId');
    return this.sessions.get(sessionId);
  }

  /** The record of `sessionId`; throws SessionNotFoundError when absent. */
  require(sessionId: string): MemorySessionRecord {
    const record = this.find(sessionId);
    if (record === undefined) throw new SessionNotFoundError(sessionId);
    return record;
  }
}

/**
 * A fresh, empty record for a new session.
 *
 * @example
 * data.sessions.set(id, emptyRecord(state));
 */
export function emptyRecord(state: SessionState): MemorySessionRecord {
  return { state, interrupt: null, messages: [], runs: [], checkpoints: [], subSessionRefs: [], staging: [] };
}

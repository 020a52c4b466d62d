import { describe, expect, it } from 'vitest';
import { SESSION_WRITE_COLUMNS, sessionFromRow, sessionParameters, sessionPlaceholders, type SessionRow } from '../../../src/store/postgres/session-row.js';
import { storeTables } from '../../../src/store/postgres/tables.js';
import { quoteIdentifier } from '../../../src/database/sql-identifier.js';
import type { SessionState } from '../../../src/types/session.js';

/** Build the row Postgres would return for parameters written in SESSION_WRITE_COLUMNS order. */
function rowFromParameters(parameters: unknown[]): SessionRow {
  const row: Record<string, unknown> = { message_count: 0 };
  SESSION_WRITE_COLUMNS.forEach((column, index) => {
    const value = parameters[index];
    const jsonColumn = column === 'custom_state' || column === 'metadata' || column === 'state';
    const bigintColumn = column === 'expires_at' || column === 'created_at' || column === 'updated_at';
    row[column] = value === null ? null : jsonColumn ? JSON.parse(value as string) : bigintColumn && typeof value === 'number' ? value.toString() : value;
  });
  return row as unknown as SessionRow;
}

describe('session row codec', () => {
  it('round-trips every SessionState field through columns and the state document', () => {
    const state: SessionState = {
      sessionId: 's1', agentType: 'a', streamId: 'st', customState: { n: [1] }, status: 'paused', stepCount: 3, output: { x: 1 }, error: 'e',
      failureReason: 'parent_suspended', interruptContext: { reason: 'r', interruptedAt: 5 }, pendingClientToolCalls: {}, suspendedStepId: 'r:1',
      completedClientToolCalls: { c: 9 }, clientToolCallOwnership: { c: 's2' }, tracingContext: { traceId: 't', rootSpanId: 'r' }, expiresAt: 1_800_000_000_000,
      parentSessionId: 'p', rootSessionId: 'root', mode: 'persistent', version: 4, resumeCount: 2, checkpointId: 'r:1', checkpointedAt: 6, checkpointSource: 'save',
      userId: 'u', tags: ['t'], metadata: { k: 'v' }, createdAt: 1_700_000_000_000, updatedAt: 1_700_000_000_001,
    };
    expect(sessionFromRow(rowFromParameters(sessionParameters(state)))).toEqual(state);
  });

  it('omits absent optional fields instead of returning null or undefined', () => {
    const state: SessionState = { sessionId: 's', agentType: 'a', customState: {}, status: 'active', stepCount: 0, version: 1, resumeCount: 0, createdAt: 1, updatedAt: 1 };
    const loaded = sessionFromRow(rowFromParameters(sessionParameters(state)));
    expect(loaded).toEqual(state);
    expect(Object.keys(loaded).sort()).toEqual(Object.keys(state).sort());
  });

  it('numbers placeholders with casts in column order', () => {
    const placeholders = sessionPlaceholders(1);
    expect(placeholders).toHaveLength(SESSION_WRITE_COLUMNS.length);
    expect(placeholders[0]).toBe('$1');
    expect(placeholders[SESSION_WRITE_COLUMNS.indexOf('custom_state')]).toMatch(/::jsonb$/);
    expect(placeholders.at(-1)).toBe(`$${SESSION_WRITE_COLUMNS.length}::jsonb`);
  });
});

describe('table names', () => {
  it('quotes schema names so any name is safe to splice into SQL', () => {
    expect(quoteIdentifier('a"b')).toBe('"a""b"');
    expect(storeTables('My "S"').sessions).toBe('"My ""S"""."__agents_sessions"');
    expect(() => storeTables('')).toThrow(/schema must be/);
    expect(() => storeTables('x'.repeat(64))).toThrow(/schema must be/);
  });
});

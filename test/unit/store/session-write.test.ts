import { describe, expect, it } from 'vitest';
import { applySessionWrite, createInitialSessionState, mergeMetadata, statusWrite } from '../../../src/store/session-write.js';
import type { SessionState } from '../../../src/types/session.js';

const base = (): SessionState => createInitialSessionState('s1', { agentType: 'a', customState: { n: 1 }, mode: 'standard' }, 1000);

describe('createInitialSessionState', () => {
  it('starts at version 1 with copies of the options and no undefined keys', () => {
    const customState = { n: 1 };
    const state = createInitialSessionState('s1', { agentType: 'a', customState, tags: ['x'] }, 1000);
    customState.n = 2;
    expect(state).toEqual({
      sessionId: 's1', agentType: 'a', customState: { n: 1 }, status: 'active', stepCount: 0, version: 1, resumeCount: 0, tags: ['x'], createdAt: 1000, updatedAt: 1000,
    });
    expect(Object.values(state)).not.toContain(undefined);
  });

  it('rejects an unknown status', () => {
    expect(() => createInitialSessionState('s1', { agentType: 'a', status: 'running' as never }, 1)).toThrow(/status must be one of/);
  });
});

describe('applySessionWrite', () => {
  it('bumps the version and updatedAt and deep-copies written values', () => {
    const output = { answer: [1] };
    const next = applySessionWrite(base(), { output, stepCount: 3 }, 2000);
    output.answer.push(2);
    expect(next).toMatchObject({ version: 2, updatedAt: 2000, createdAt: 1000, stepCount: 3, output: { answer: [1] } });
  });

  it('clears optional fields set to undefined or null, but never required ones', () => {
    const withError = applySessionWrite(base(), { error: 'x', suspendedStepId: 'r:1' }, 2);
    const cleared = applySessionWrite(withError, { error: undefined, suspendedStepId: null as never, status: undefined, customState: undefined }, 3);
    expect('error' in cleared).toBe(false);
    expect('suspendedStepId' in cleared).toBe(false);
    expect(cleared).toMatchObject({ status: 'active', customState: { n: 1 } });
  });

  it('stores a null output as a value and clears it with undefined', () => {
    const withNull = applySessionWrite(base(), { output: null }, 2);
    expect(withNull.output).toBeNull();
    expect('output' in applySessionWrite(withNull, { output: undefined }, 3)).toBe(false);
  });

  it('ignores identity fields and keeps a mode once set', () => {
    const write = { sessionId: 'other', version: 99, createdAt: 5, mode: 'persistent' } as never;
    expect(applySessionWrite(base(), write, 2)).toMatchObject({ sessionId: 's1', version: 2, createdAt: 1000, mode: 'standard' });
    const modeless = createInitialSessionState('s2', { agentType: 'a' }, 1);
    expect(applySessionWrite(modeless, { mode: 'persistent' }, 2).mode).toBe('persistent');
  });

  it('rejects non-JSON values and bad statuses before returning anything', () => {
    expect(() => applySessionWrite(base(), { output: { big: 1n } }, 2)).toThrow(/output must be JSON-serializable/);
    expect(() => applySessionWrite(base(), { status: 'done' as never }, 2)).toThrow(/status must be one of/);
  });
});

describe('mergeMetadata and statusWrite', () => {
  it('sets, deletes and validates metadata keys', () => {
    expect(mergeMetadata({ a: '1', b: '2' }, { a: null, c: '3' })).toEqual({ b: '2', c: '3' });
    expect(mergeMetadata(undefined, {})).toEqual({});
    expect(() => mergeMetadata({}, { a: 1 as never })).toThrow(/metadata values must be strings/);
  });

  it('writes only the context fields that are defined', () => {
    expect(statusWrite('failed', { error: 'e', failureReason: 'parent_suspended' })).toEqual({ status: 'failed', error: 'e', failureReason: 'parent_suspended' });
    expect(statusWrite('active')).toEqual({ status: 'active' });
  });
});

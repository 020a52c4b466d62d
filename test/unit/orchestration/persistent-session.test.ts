import { describe, expect, it } from 'vitest';
import {
  parkedPastIdleTimeout,
  persistentMarkerPatch,
  persistentRestartWorkflowId,
  persistentTurnKey,
  readPersistentMarker,
  withPersistentMarker,
  type PersistentMarker,
  type PersistentWorkflowInput,
} from '../../../src/orchestration/persistent-session.js';

const start: PersistentWorkflowInput = {
  sessionId: 's1',
  agentType: 'chat',
  streamId: 's1',
  workflowId: 'chat__s1__persistent',
  generation: 0,
  rootSessionId: 's1',
  hitlWarmWindowMs: 60_000,
  idleWarmWindowMs: 60_000,
  idleTimeoutMs: 86_400_000,
  initialMessages: [{ kind: 'turn', runId: 'run-1', userMessage: { id: 'run-1:0:0', role: 'user', content: 'hi' } }],
};

describe('persistent marker in session metadata', () => {
  const cases: Array<[string, PersistentMarker]> = [
    ['live, generation 0', { workflowId: 'chat__s1__persistent', phase: 'live', generation: 0, start }],
    ['closing', { workflowId: 'chat__s1__persistent', phase: 'closing', generation: 0 }],
    ['parked with a deadline', { workflowId: 'chat__s1__persistent__restart-2', phase: 'closed', generation: 2, endReason: 'parked', idleDeadlineAt: 1_700_000_000_000 }],
    ['suspended with deferred messages', { workflowId: 'w', phase: 'closed', generation: 1, endReason: 'suspended', deferred: [{ kind: 'turn', runId: 'run-9' }] }],
  ];
  it.each(cases)('round-trips %s through metadata, keeping the user keys', (_name, marker) => {
    const metadata = withPersistentMarker({ team: 'blue' }, marker);
    expect(metadata.team).toBe('blue');
    expect(metadata.dbosWorkflowId).toBe(marker.workflowId);
    expect(Object.values(metadata).every((value) => typeof value === 'string')).toBe(true);
    expect(readPersistentMarker(metadata)).toEqual(marker);
  });

  it('drops optional keys a later marker no longer has', () => {
    const closed = withPersistentMarker({}, { workflowId: 'w', phase: 'closed', generation: 1, endReason: 'suspended', deferred: [{ kind: 'turn', runId: 'r' }] });
    const live = withPersistentMarker(closed, { workflowId: 'w2', phase: 'live', generation: 2 });
    expect(readPersistentMarker(live)).toEqual({ workflowId: 'w2', phase: 'live', generation: 2 });
    expect(persistentMarkerPatch({ workflowId: 'w2', phase: 'live', generation: 2 })).toMatchObject({ dbosPersistentDeferred: null, dbosPersistentEndReason: null });
  });

  it('reads no marker from a standard session', () => {
    expect(readPersistentMarker(undefined)).toBeUndefined();
    expect(readPersistentMarker({ user: 'ada' })).toBeUndefined();
  });

  it('derives deterministic ids', () => {
    expect(persistentRestartWorkflowId('chat', 's1', 3)).toBe('chat__s1__persistent__restart-3');
    expect(persistentTurnKey('run-7')).toBe('persistent-turn:run-7');
  });
});

describe('parkedPastIdleTimeout', () => {
  const parked = { workflowId: 'w', phase: 'closed' as const, generation: 0, endReason: 'parked' as const, idleDeadlineAt: 1_000 };
  it.each([
    ['parked, deadline passed', parked, 1_000, true],
    ['parked, before the deadline', parked, 999, false],
    ['parked without a deadline', { ...parked, idleDeadlineAt: undefined }, 5_000, false],
    ['already idle_timeout', { ...parked, endReason: 'idle_timeout' as const }, 5_000, false],
    ['suspended for a human', { ...parked, endReason: 'suspended' as const }, 5_000, false],
    ['live', { ...parked, phase: 'live' as const }, 5_000, false],
    ['no marker', undefined, 5_000, false],
  ])('%s', (_label, marker, now, expected) => {
    expect(parkedPastIdleTimeout(marker, now)).toBe(expected);
  });
});

import { describe, expect, it } from 'vitest';
import { prepareMessagesForAppend } from '../../../src/store/message-append.js';
import { buildClonedSessionState } from '../../../src/store/session-clone.js';
import { createInitialSessionState } from '../../../src/store/session-write.js';
import { replayCheckpointDelta } from '../../../src/store/staged-patches.js';
import { buildStepCommit } from '../../../src/store/step-commit.js';

describe('buildStepCommit', () => {
  it('applies the write, then the staged patches in order, and checkpoints the result', () => {
    const current = createInitialSessionState('s1', { agentType: 'a', customState: { items: ['x'] } }, 1);
    const staged = [{ patches: [{ op: 'add' as const, path: '/items/-', value: 'a' }] }, { patches: [{ op: 'add' as const, path: '/items/-', value: 'b' }] }];
    const { state, checkpoint } = buildStepCommit(current, { customState: { items: ['w'] }, stepCount: 2 }, staged, 7, { checkpointId: 'r1:2', runId: 'r1', stepCount: 2 }, 50);
    expect(state).toMatchObject({ version: 2, stepCount: 2, customState: { items: ['w', 'a', 'b'] }, checkpointId: 'r1:2', checkpointedAt: 50, checkpointSource: 'staging' });
    expect(checkpoint).toEqual({ id: 'r1:2', sessionId: 's1', runId: 'r1', stepCount: 2, messageCount: 7, customState: { items: ['w', 'a', 'b'] }, createdAt: 50 });
    expect(checkpoint.customState).not.toBe(state.customState);
    expect(current.customState).toEqual({ items: ['x'] });
  });

  it('reports the delta the staged patches applied (null when the write replaced customState); replaying it gives the same state', () => {
    const current = createInitialSessionState('s1', { agentType: 'a', customState: { items: ['x'], gone: 1 } }, 1);
    const staged = [
      { patches: [{ op: 'add' as const, path: '/items/-', value: 'a' }, { op: 'remove' as const, path: '/gone' }] },
      // Conflicts skipped by the merge (already removed), a replace that creates a missing member, a move.
      { patches: [{ op: 'remove' as const, path: '/gone' }, { op: 'replace' as const, path: '/fresh', value: { n: 1 } }, { op: 'move' as const, from: '/items/0', path: '/first' }] },
    ];
    const meta = { checkpointId: 'r1:2', runId: 'r1', stepCount: 2 };
    const { state, delta } = buildStepCommit(current, { stepCount: 2 }, staged, 0, meta, 5);
    expect(state.customState).toEqual({ items: ['a'], fresh: { n: 1 }, first: 'x' });
    expect(delta).toHaveLength(4);
    expect(replayCheckpointDelta(current.customState, delta ?? [])).toEqual(state.customState);
    expect(() => replayCheckpointDelta({ items: [] }, delta ?? [])).toThrow(/cannot be applied/);
    expect(buildStepCommit(current, { customState: { items: [] } }, staged, 0, meta, 5).delta).toBeNull();
    expect(buildStepCommit(current, { stepCount: 3 }, [], 0, meta, 5).delta).toEqual([]);
  });
});

describe('prepareMessagesForAppend', () => {
  it('skips known and repeated ids, assigns missing ids and contiguous sequences', () => {
    const rows = prepareMessagesForAppend(
      [
        { id: 'known', role: 'user', content: 'a' },
        { id: 'new', role: 'user', content: 'b' },
        { role: 'assistant', content: 'c' },
        { id: 'new', role: 'user', content: 'again' },
      ],
      new Set(['known']),
      4,
    );
    expect(rows.map((row) => [row.id === 'new' ? 'new' : typeof row.id, row.sequence, row.content])).toEqual([
      ['new', 5, 'b'],
      ['string', 6, 'c'],
    ]);
    expect(rows[1]?.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('names the bad message index, never its content', () => {
    expect(() => prepareMessagesForAppend([{ role: 'tool', toolCallId: 'c', toolName: 't', content: 2n }], new Set(), 0)).toThrow(/messages\[0\] must be JSON-serializable/);
  });
});

describe('buildClonedSessionState', () => {
  it('starts a new root session and takes state from the checkpoint', () => {
    const source = {
      ...createInitialSessionState('src', { agentType: 'a', customState: { n: 5 }, streamId: 'st', parentSessionId: 'p', mode: 'standard' }, 1),
      version: 9,
      resumeCount: 3,
      stepCount: 4,
      pendingClientToolCalls: {},
      checkpointId: 'r1:4',
    };
    const checkpoint = { id: 'r1:2', sessionId: 'src', runId: 'r1', stepCount: 2, messageCount: 3, customState: { n: 2 }, createdAt: 7 };
    const branch = buildClonedSessionState(source, 'dst', checkpoint, undefined, 100);
    expect(branch).toEqual({
      sessionId: 'dst', agentType: 'a', customState: { n: 2 }, status: 'active', stepCount: 2, version: 1, resumeCount: 0, mode: 'standard',
      checkpointId: 'r1:2', checkpointedAt: 7, createdAt: 100, updatedAt: 100,
    });
  });
});

import { describe, expect, it } from 'vitest';
import { finishMayJoinRecord } from '../../../src/steps/finish-record.js';
import type { PendingStepCommit } from '../../../src/steps/commit.step.js';

const commit: PendingStepCommit = { step: 1, messages: [], toolOutcomes: [], rejectedCalls: [] };

describe('finishMayJoinRecord', () => {
  const cases: Array<[string, string[], { parent?: unknown; status: string; commit?: PendingStepCommit }, boolean]> = [
    ['a root run without hooks', [], { status: 'completed' }, true],
    ['a root run with its last commit due', [], { status: 'completed', commit }, true],
    ['a sub-agent run', [], { status: 'completed', parent: { sessionId: 'p' } }, false],
    ['onAgentComplete registered', ['onAgentComplete'], { status: 'completed' }, false],
    ['onAgentFail registered', ['onAgentFail'], { status: 'failed' }, false],
    ['a failed run with a commit due', [], { status: 'failed', commit }, false],
    ['a failed run without a commit due', [], { status: 'failed' }, true],
    ['onMessage with a commit due', ['onMessage'], { status: 'completed', commit }, false],
    ['afterTool with a commit due', ['afterTool'], { status: 'completed', commit }, false],
    ['onMessage without a commit due', ['onMessage'], { status: 'completed' }, true],
  ];
  it.each(cases)('%s (hooks %j): %j', (_name, registered, input, expected) => {
    expect(finishMayJoinRecord({ hasHooks: (name?: string) => name !== undefined && registered.includes(name) }, input)).toBe(expected);
  });
});

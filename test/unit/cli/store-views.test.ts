import { describe, expect, it } from 'vitest';
import { messageViewOf, openCallsOf, pendingViewOf, runViewOf, sessionViewOf } from '../../../src/cli/backend/store-views.js';
import type { PendingClientToolCall, SessionState, StoredMessage } from '../../../src/index.js';

const call = (toolCallId: string, createdAt: number, extra: Partial<PendingClientToolCall> = {}): PendingClientToolCall => ({
  toolCallId,
  toolName: 'pay',
  kind: 'approval',
  input: { amount: 5 },
  ownerSessionId: 's1',
  agentType: 'assistant',
  runId: 'r1',
  createdAt,
  ...extra,
});

const state = (extra: Partial<SessionState>): SessionState =>
  ({ sessionId: 's1', agentType: 'assistant', status: 'active', stepCount: 2, version: 3, createdAt: 10, updatedAt: 20, customState: { secret: 'x' }, ...extra }) as SessionState;

describe('store rows as the CLI reports them', () => {
  it('open calls: unanswered only, oldest first', () => {
    const calls = { c2: call('c2', 2), c1: call('c1', 1), c3: call('c3', 3, { submittedAt: 4 }) };
    expect(openCallsOf({ pendingClientToolCalls: calls }).map((open) => open.toolCallId)).toEqual(['c1', 'c2']);
    expect(openCallsOf({})).toEqual([]);
  });

  it.each([
    ['an active session waiting for a human', { pendingClientToolCalls: { c1: call('c1', 1) } }, { awaitingHuman: true }],
    ['an answered call is no wait', { pendingClientToolCalls: { c1: call('c1', 1, { submittedAt: 2 }) } }, { awaitingHuman: false }],
    ['an interrupted session waits for no one', { status: 'interrupted' as const, pendingClientToolCalls: { c1: call('c1', 1) } }, { awaitingHuman: false, status: 'interrupted' }],
    ['a failed one keeps its reason and error', { status: 'failed' as const, failureReason: 'aborted', error: 'ABORTED: stop' }, { status: 'failed', failureReason: 'aborted', error: 'ABORTED: stop' }],
    ['a sub-agent names its parent and root', { parentSessionId: 'p', rootSessionId: 'p' }, { parentSessionId: 'p', rootSessionId: 'p' }],
  ])('sessionViewOf: %s (no custom state)', (_label, extra, expected) => {
    const view = sessionViewOf(state(extra));
    expect(view).toMatchObject({ sessionId: 's1', agentType: 'assistant', stepCount: 2, createdAt: 10, updatedAt: 20, ...expected });
    expect(JSON.stringify(view)).not.toContain('secret');
  });

  it('pendingViewOf addresses the root and names a sub-agent owner', () => {
    expect(pendingViewOf('s1', call('c1', 1, { approvalId: 'a1' }))).toEqual({ sessionId: 's1', toolCallId: 'c1', toolName: 'pay', kind: 'approval', input: { amount: 5 }, approvalId: 'a1', createdAt: 1 });
    expect(pendingViewOf('root', call('c1', 1, { ownerSessionId: 'root-sub-c0', deadlineAt: 9 }))).toMatchObject({ sessionId: 'root', ownerSessionId: 'root-sub-c0', deadlineAt: 9 });
  });

  it('runViewOf and messageViewOf keep what an operator reads', () => {
    expect(runViewOf({ runId: 'r1', sessionId: 's1', turn: 1, status: 'completed', stepCount: 2, startSequence: 0, startedAt: 5, endedAt: 9, completionReason: 'text_response', workflowId: 'w' })).toEqual({
      runId: 'r1',
      turn: 1,
      status: 'completed',
      stepCount: 2,
      completionReason: 'text_response',
      startedAt: 5,
      endedAt: 9,
    });
    const assistant: StoredMessage = { id: 'm1', sequence: 1, role: 'assistant', content: 'Paying.', toolCalls: [{ id: 'c1', name: 'pay', arguments: { amount: 5 } }], createdAt: 3 };
    expect(messageViewOf(assistant)).toEqual({ role: 'assistant', content: 'Paying.', toolCalls: [{ id: 'c1', name: 'pay', arguments: { amount: 5 } }], createdAt: 3 });
    const tool: StoredMessage = { id: 'm2', sequence: 2, role: 'tool', toolCallId: 'c1', toolName: 'pay', content: { paid: 5 } };
    expect(messageViewOf(tool)).toEqual({ role: 'tool', content: { paid: 5 }, toolName: 'pay' });
  });
});

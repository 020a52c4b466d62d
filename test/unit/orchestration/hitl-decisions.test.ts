import { describe, expect, it } from 'vitest';
import {
  collectAnswers,
  firesAfterToolOnResolve,
  healUnpairedCalls,
  isCallAnswered,
  openCallIds,
  planHitlAnnouncement,
  resolveSubmission,
  UNANSWERED_CALL_MESSAGE,
} from '../../../src/orchestration/hitl-decisions.js';
import { APPROVAL_DENIED_MESSAGE, CLIENT_TOOL_TIMEOUT_MESSAGE, type HitlCall, type Submission } from '../../../src/orchestration/hitl-types.js';
import type { Message } from '../../../src/types/message.js';
import type { PendingClientToolCall } from '../../../src/types/session.js';

function hitl(id: string, kind: 'client' | 'approval', timeoutMs?: number): HitlCall {
  return {
    call: { toolCallId: id, toolName: kind === 'client' ? 'pick' : 'pay', input: { n: 1 }, index: 0, resultMessageId: `r:1:${id}` },
    kind,
    approvalId: id,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}

function entry(id: string, extra: Partial<PendingClientToolCall> = {}): PendingClientToolCall {
  return { toolCallId: id, toolName: 'pick', kind: 'client', input: {}, ownerSessionId: 's', agentType: 'a', runId: 'r', createdAt: 0, ...extra };
}

const context = { ownerSessionId: 's1', agentType: 'agent', runId: 'run-1', createdAt: 1_000 };

describe('planHitlAnnouncement', () => {
  const cases: Array<[string, Parameters<typeof planHitlAnnouncement>[1], string[], string[] | null]> = [
    ['fresh calls: announce all, add entries', {}, ['a', 'b'], ['a', 'b']],
    ['entry without submission: re-announce, no new entry', { pendingClientToolCalls: { a: entry('a') } }, ['a', 'b'], ['a', 'b']],
    ['entry with submission: not announced', { pendingClientToolCalls: { a: entry('a', { submission: { kind: 'client-tool-result', result: 1 } }) } }, ['b'], ['a', 'b']],
    ['completed call: neither announced nor re-added', { completedClientToolCalls: { a: 5 } }, ['b'], ['b']],
    ['all already pending and answered: nothing to write', { pendingClientToolCalls: { a: entry('a', { submission: { kind: 'client-tool-result' } }), b: entry('b', { submission: { kind: 'client-tool-result' } }) } }, [], null],
  ];
  it.each(cases)('%s', (_label, session, announced, pendingIds) => {
    const { announce, pending } = planHitlAnnouncement([hitl('a', 'client'), hitl('b', 'approval')], session, context);
    expect(announce.map(({ call }) => call.toolCallId)).toEqual(announced);
    if (pendingIds === null) expect(pending).toBeNull();
    else expect(Object.keys(pending ?? {}).sort()).toEqual(pendingIds);
  });

  it('stamps new entries with the owner, run and deadline', () => {
    const { pending } = planHitlAnnouncement([hitl('a', 'client', 500)], {}, context);
    expect(pending?.a).toMatchObject({ ownerSessionId: 's1', agentType: 'agent', runId: 'run-1', kind: 'client', approvalId: 'a', createdAt: 1_000, deadlineAt: 1_500 });
  });
});

describe('isCallAnswered / collectAnswers / openCallIds', () => {
  const cases: Array<[string, PendingClientToolCall | undefined, number, boolean]> = [
    ['missing entry', undefined, 10, false],
    ['waiting, no deadline', entry('a'), 10, false],
    ['submitted', entry('a', { submission: { kind: 'client-tool-result', result: 1 } }), 10, true],
    ['deadline ahead', entry('a', { deadlineAt: 11 }), 10, false],
    ['deadline reached', entry('a', { deadlineAt: 10 }), 10, true],
  ];
  it.each(cases)('%s', (_label, pendingEntry, now, answered) => {
    expect(isCallAnswered(pendingEntry, now)).toBe(answered);
  });

  it('collects submissions and expiries, and what stays open', () => {
    const submission: Submission = { kind: 'client-tool-result', result: 'x' };
    const pending = { a: entry('a', { submission }), b: entry('b', { deadlineAt: 5 }), c: entry('c', { deadlineAt: 50 }) };
    const answers = collectAnswers(['a', 'b', 'c', 'd'], pending, 10);
    expect(answers).toEqual({ submissions: { a: submission }, expired: ['b'] });
    expect(openCallIds(['a', 'b', 'c', 'd'], answers)).toEqual(['c', 'd']);
  });
});

describe('resolveSubmission', () => {
  const cases: Array<[string, HitlCall, Submission | undefined, boolean, object, boolean]> = [
    ['approval approved → run', hitl('a', 'approval'), { kind: 'approval-response', approved: true }, false, { outcome: 'run' }, false],
    ['approval denied → denial error', hitl('a', 'approval'), { kind: 'approval-response', approved: false }, false, { outcome: 'error', error: APPROVAL_DENIED_MESSAGE }, false],
    ['approval denied with a reason → the reason reaches the model', hitl('a', 'approval'), { kind: 'approval-response', approved: false, reason: ' too much ' }, false, { outcome: 'error', error: `${APPROVAL_DENIED_MESSAGE}. Reason: too much` }, false],
    ['a long denial reason is bounded', hitl('a', 'approval'), { kind: 'approval-response', approved: false, reason: 'x'.repeat(2_000) }, false, { outcome: 'error', error: `${APPROVAL_DENIED_MESSAGE}. Reason: ${'x'.repeat(500)}…` }, false],
    ['client result', hitl('a', 'client'), { kind: 'client-tool-result', result: { ok: 1 } }, false, { outcome: 'result', result: { ok: 1 } }, true],
    ['client result undefined → null', hitl('a', 'client'), { kind: 'client-tool-result' }, false, { outcome: 'result', result: null }, true],
    ['client error', hitl('a', 'client'), { kind: 'client-tool-result', error: 'nope' }, false, { outcome: 'error', error: 'nope' }, true],
    ['expired', hitl('a', 'client'), undefined, true, { outcome: 'error', error: CLIENT_TOOL_TIMEOUT_MESSAGE }, true],
    ['nothing submitted', hitl('a', 'approval'), undefined, false, { outcome: 'error', error: 'No result was submitted for this tool call.' }, true],
  ];
  it.each(cases)('%s', (_label, call, submission, expired, expected, firesAfterTool) => {
    const resolution = resolveSubmission(call, submission, expired);
    expect(resolution).toMatchObject(expected);
    expect(firesAfterToolOnResolve(resolution)).toBe(firesAfterTool);
  });
});

describe('healUnpairedCalls', () => {
  const assistant: Message = {
    id: 'r1:1:0',
    role: 'assistant',
    content: '',
    toolCalls: [
      { id: 'c1', name: 'pick', arguments: {} },
      { id: 'c2', name: 'search', arguments: {} },
      { id: 'f', name: '__finish__', arguments: { answer: 1 } },
    ],
  };
  const answeredC2: Message = { id: 'r1:1:2', role: 'tool', toolCallId: 'c2', toolName: 'search', content: 'ok' };

  const cases: Array<[string, Message[], boolean, Array<[string, boolean]>]> = [
    ['finish only when not all calls', [assistant, answeredC2], false, [['f', false]]],
    ['all unpaired calls of the last assistant message', [assistant, answeredC2], true, [['c1', true], ['f', false]]],
    ['nothing when the history has no assistant message', [{ id: 'u', role: 'user', content: 'hi' }], true, []],
  ];
  it.each(cases)('%s', (_label, history, allCalls, expected) => {
    const healed = healUnpairedCalls(history, 'run-2', allCalls);
    expect(healed.map((message) => [message.toolCallId, message.isError === true])).toEqual(expected);
    for (const message of healed) expect(message.id).toBe(`run-2:heal:${message.toolCallId}`);
    if (allCalls && healed.some((message) => message.toolCallId === 'c1')) {
      expect(healed.find((message) => message.toolCallId === 'c1')?.content).toBe(UNANSWERED_CALL_MESSAGE);
    }
  });
});

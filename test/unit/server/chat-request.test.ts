import { describe, expect, it } from 'vitest';
import { answersOf, knownToolCallsOf, userText } from '../../../src/server/chat-request.js';
import { errorResponse } from '../../../src/server/http-errors.js';
import { AgentServerHttpError } from '../../../src/server/server-errors.js';
import { noopLogger } from '../../../src/hooks/logger.js';
import { InvalidSubmissionError, NotResumableError } from '../../../src/errors/index.js';
import type { ChatMessage } from '../../../src/server/wire-schemas.js';
import type { PendingClientToolCall, SessionState } from '../../../src/types/session.js';

function pending(toolCallId: string, kind: 'client' | 'approval', submittedAt?: number): PendingClientToolCall {
  return { toolCallId, toolName: kind === 'client' ? 'ask' : 'pay', kind, input: {}, ownerSessionId: 's1', agentType: 'a', runId: 'r1', createdAt: 0, ...(submittedAt === undefined ? {} : { submittedAt }) };
}
const state = (...calls: PendingClientToolCall[]): SessionState =>
  ({ sessionId: 's1', agentType: 'a', customState: {}, status: 'active', stepCount: 1, version: 3, resumeCount: 0, createdAt: 0, updatedAt: 0, pendingClientToolCalls: Object.fromEntries(calls.map((call) => [call.toolCallId, call])) });
const assistant = (...parts: Array<Record<string, unknown>>): ChatMessage => ({ id: 'm1', role: 'assistant', parts: parts as ChatMessage['parts'] });

describe('chat request parsing', () => {
  it('userText joins the text parts only', () => {
    expect(userText({ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Hel' }, { type: 'file', url: 'x' }, { type: 'text', text: 'lo' }] })).toBe('Hello');
  });

  const cases: Array<{ name: string; parts: Array<Record<string, unknown>>; calls: PendingClientToolCall[]; expected: unknown[] }> = [
    { name: 'a client tool output', parts: [{ type: 'tool-ask', toolCallId: 'c1', state: 'output-available', output: { city: 'Oslo' } }], calls: [pending('c1', 'client')], expected: [{ kind: 'client-tool-result', sessionId: 's1', toolCallId: 'c1', result: { city: 'Oslo' } }] },
    { name: 'a client tool error', parts: [{ type: 'dynamic-tool', toolName: 'ask', toolCallId: 'c1', state: 'output-error', errorText: 'denied by browser' }], calls: [pending('c1', 'client')], expected: [{ kind: 'client-tool-result', sessionId: 's1', toolCallId: 'c1', error: 'denied by browser' }] },
    {
      name: 'an approval decision with a reason',
      parts: [{ type: 'tool-pay', toolCallId: 'p1', state: 'approval-responded', approval: { id: 'ap1', approved: false, reason: 'too much' } }],
      calls: [pending('p1', 'approval')],
      expected: [{ kind: 'approval-response', sessionId: 's1', toolCallId: 'p1', approvalId: 'ap1', approved: false, reason: 'too much' }],
    },
    { name: 'calls not waiting (answered before, unknown, still unanswered on the client)', parts: [{ type: 'tool-ask', toolCallId: 'c1', state: 'output-available', output: 1 }, { type: 'tool-ask', toolCallId: 'zz', state: 'output-available', output: 2 }, { type: 'tool-pay', toolCallId: 'p1', state: 'approval-requested', approval: { id: 'p1' } }], calls: [pending('c1', 'client', 5), pending('p1', 'approval')], expected: [] },
    { name: 'a kind mismatch (an output for an approval gate) is ignored', parts: [{ type: 'tool-pay', toolCallId: 'p1', state: 'output-available', output: 'approved!' }], calls: [pending('p1', 'approval')], expected: [] },
  ];
  for (const { name, parts, calls, expected } of cases) {
    it(`answersOf: ${name}`, () => {
      expect(answersOf(assistant(...parts), state(...calls))).toEqual(expected);
    });
  }

  it('knownToolCallsOf marks approval parts', () => {
    expect(knownToolCallsOf(assistant({ type: 'text', text: 'x' }, { type: 'tool-ask', toolCallId: 'c1', state: 'input-available' }, { type: 'tool-pay', toolCallId: 'p1', state: 'approval-responded', approval: { id: 'p1', approved: true } }))).toEqual({ c1: 'input', p1: 'approval' });
  });
});

describe('error responses', () => {
  it('maps server and executor errors to their status with code and message only', async () => {
    const invalid = errorResponse(new AgentServerHttpError(400, 'INVALID_REQUEST', 'The request body is invalid.', [{ path: 'input', code: 'invalid_type' }]), noopLogger);
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toEqual({ error: { code: 'INVALID_REQUEST', message: 'The request body is invalid.', issues: [{ path: 'input', code: 'invalid_type' }] } });
    expect(errorResponse(new NotResumableError('s1', 'completed', 'use execute() to start a new turn.'), noopLogger).status).toBe(409);
    expect(errorResponse(new InvalidSubmissionError('bad'), noopLogger).status).toBe(400);
  });

  it('answers anything else with a generic 500 that echoes nothing', async () => {
    const logged: unknown[] = [];
    const logger = { ...noopLogger, error: (...args: unknown[]) => void logged.push(args) };
    const response = errorResponse(new Error('password=hunter2 in SELECT …'), logger);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain('hunter2');
    expect(JSON.stringify(logged)).not.toContain('hunter2');
    expect(JSON.parse(text)).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'The server could not complete the request.' } });
  });
});

import { describe, expect, it } from 'vitest';

import { planStepProcessing } from '../../../src/orchestration/index.js';
import { fullAgent, stepWith, textAgent } from './fixtures.js';

const context = { sessionId: 's1', runId: 'run-1', step: 2 };

type Bucket = 'serverToolCalls' | 'clientToolCalls' | 'approvalCalls' | 'finishWithCalls' | 'subAgentCalls' | 'remoteCalls' | 'companionCalls' | 'toolErrors';

describe('planStepProcessing routing', () => {
  const routes: Array<[string, string, Record<string, unknown>, Bucket, Record<string, unknown>]> = [
    ['regular server tool (defaults applied)', 'search', { query: 'cats' }, 'serverToolCalls', { input: { query: 'cats', limit: 3 } }],
    ['client tool', 'pick', { options: ['a', 'b'] }, 'clientToolCalls', { input: { options: ['a', 'b'] } }],
    ['always-approval tool', 'pay', { amount: 5 }, 'approvalCalls', { approval: 'always' }],
    ['predicate-approval tool', 'refund', { amount: 50 }, 'approvalCalls', { approval: 'predicate' }],
    ['finishWith tool', 'submit', { report: 'r' }, 'finishWithCalls', { input: { report: 'r' } }],
    ['sub-agent tool', 'subagent__summarizer', { text: 't' }, 'subAgentCalls', { agentType: 'summarizer', childSessionId: 's1-sub-c0', childMessage: '{"text":"t"}' }],
    ['remote sub-agent tool', 'remote__researcher', { topic: 't' }, 'remoteCalls', { agentType: 'researcher', remoteSessionId: 's1-remote-c0', childMessage: '{"topic":"t"}' }],
    ['companion tool', 'companion__waitForResult', { name: 'summarizer-1' }, 'companionCalls', { action: 'waitForResult' }],
    ['unknown tool', 'delete_everything', {}, 'toolErrors', { reason: 'unknown_tool' }],
    ['invalid arguments', 'search', { query: 1 }, 'toolErrors', { reason: 'invalid_arguments' }],
  ];

  it.each(routes)('%s', (_label, name, args, bucket, expected) => {
    const plan = planStepProcessing(stepWith([{ name, arguments: args }]), fullAgent, context);
    const buckets: Bucket[] = ['serverToolCalls', 'clientToolCalls', 'approvalCalls', 'finishWithCalls', 'subAgentCalls', 'remoteCalls', 'companionCalls', 'toolErrors'];
    for (const other of buckets) expect(plan[other]).toHaveLength(other === bucket ? 1 : 0);
    expect(plan[bucket][0]).toMatchObject({ toolCallId: 'c0', toolName: name, index: 0, ...expected });
    expect(plan.finishCall).toBeUndefined();
  });
});

describe('planStepProcessing', () => {
  it('gives the assistant message and every result deterministic ids', () => {
    const step = stepWith([{ name: 'search', arguments: { query: 'aa' } }, { name: 'nope', arguments: {} }, { name: 'pick', arguments: { options: [] } }], 'Let me look.');
    const plan = planStepProcessing(step, fullAgent, context);
    expect(plan.assistantMessage).toEqual({ id: 'run-1:2:0', role: 'assistant', content: 'Let me look.', toolCalls: step.toolCalls });
    expect(plan.serverToolCalls[0]?.resultMessageId).toBe('run-1:2:1');
    expect(plan.toolErrors[0]?.resultMessage.id).toBe('run-1:2:2');
    expect(plan.clientToolCalls[0]?.resultMessageId).toBe('run-1:2:3');
    expect(planStepProcessing(step, fullAgent, context)).toEqual(plan);
  });

  it('lists the available tools for an unknown tool', () => {
    const plan = planStepProcessing(stepWith([{ name: 'fly', arguments: {} }]), textAgent, context);
    expect(plan.toolErrors[0]?.error).toBe('Unknown tool "fly". Available tools: search. Call one of these instead.');
    expect(plan.toolErrors[0]?.resultMessage).toEqual({
      id: 'run-1:2:1',
      role: 'tool',
      toolCallId: 'c0',
      toolName: 'fly',
      content: plan.toolErrors[0]?.error,
      isError: true,
    });
  });

  it('explains invalid arguments by field without echoing the payload', () => {
    const secret = 'x';
    const plan = planStepProcessing(stepWith([{ name: 'search', arguments: { query: secret, limit: 'many' } }]), fullAgent, context);
    const error = plan.toolErrors[0]?.error ?? '';
    expect(error).toMatch(/^Invalid arguments for tool "search": query: .*; limit: .*expected number/);
    expect(error).not.toContain('"x"');
    expect(error).not.toContain('many');
  });

  it('turns a call the adapter could not parse into a tool error', () => {
    const step = { ...stepWith([{ name: 'search', arguments: {} }]), invalidToolCalls: [{ toolCallId: 'c0', toolName: 'search', error: 'Tool arguments were not a valid JSON object.' }] };
    const plan = planStepProcessing(step, fullAgent, context);
    expect(plan.serverToolCalls).toHaveLength(0);
    expect(plan.toolErrors[0]).toMatchObject({ reason: 'invalid_arguments', error: expect.stringContaining('not a valid JSON object') as string });
  });

  it('plans a valid __finish__ with its parsed output and a synthetic result', () => {
    const plan = planStepProcessing(stepWith([{ name: '__finish__', arguments: { answer: '42', confidence: 0.9 } }]), fullAgent, context);
    expect(plan.finishCall).toEqual({
      toolCallId: 'c0',
      index: 0,
      output: { answer: '42', confidence: 0.9 },
      resultMessage: { id: 'run-1:2:1', role: 'tool', toolCallId: 'c0', toolName: '__finish__', content: expect.any(String) as string },
    });
    expect(plan.toolErrors).toEqual([]);
  });

  it('feeds an invalid __finish__ output back as a tool error', () => {
    const plan = planStepProcessing(stepWith([{ name: '__finish__', arguments: { answer: '42', confidence: 7 } }]), fullAgent, context);
    expect(plan.finishCall).toBeUndefined();
    expect(plan.toolErrors[0]).toMatchObject({ reason: 'invalid_output', toolName: '__finish__' });
    expect(plan.toolErrors[0]?.error).toMatch(/confidence: Too big/);
  });

  it('keeps the first valid __finish__ and answers later ones with an error', () => {
    const plan = planStepProcessing(
      stepWith([
        { name: '__finish__', arguments: { answer: 'bad' } },
        { name: '__finish__', arguments: { answer: 'first', confidence: 1 } },
        { name: '__finish__', arguments: { answer: 'second', confidence: 1 } },
      ]),
      fullAgent,
      context,
    );
    expect(plan.finishCall?.output).toEqual({ answer: 'first', confidence: 1 });
    expect(plan.toolErrors.map((failure) => [failure.index, failure.reason])).toEqual([
      [0, 'invalid_output'],
      [2, 'duplicate_finish'],
    ]);
  });

  it('treats __finish__ as unknown for an agent without outputSchema', () => {
    const plan = planStepProcessing(stepWith([{ name: '__finish__', arguments: {} }]), textAgent, context);
    expect(plan.toolErrors[0]?.reason).toBe('unknown_tool');
  });

  it('asks an agent with outputSchema to call __finish__ after a text answer', () => {
    const plan = planStepProcessing(stepWith([], 'Hello'), fullAgent, context);
    expect(plan.isTextResponse).toBe(true);
    expect(plan.finishReminder).toMatchObject({ id: 'run-1:2:1', role: 'user', metadata: { synthetic: true } });
    expect(plan.finishReminder?.content).toContain('__finish__');
  });

  it('adds no reminder for an agent without outputSchema', () => {
    const plan = planStepProcessing(stepWith([], 'Hello'), textAgent, context);
    expect(plan.isTextResponse).toBe(true);
    expect(plan.finishReminder).toBeUndefined();
    expect(plan.assistantMessage).toEqual({ id: 'run-1:2:0', role: 'assistant', content: 'Hello' });
  });

  it('produces a plan that survives a JSON round trip unchanged', () => {
    const plan = planStepProcessing(
      stepWith([{ name: 'search', arguments: { query: 'abc' } }, { name: 'subagent__summarizer', arguments: { text: 't' } }, { name: 'x', arguments: {} }]),
      fullAgent,
      context,
    );
    expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
  });
});

import { describe, expect, it } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import { planStepProcessing } from '../../../src/orchestration/index.js';
import { soleToolCommit, soleToolCommitMessages } from '../../../src/orchestration/sole-tool-commit.js';
import type { ToolOutcome } from '../../../src/orchestration/tool-outcome.js';
import { fullAgent, searchTool, stepWith } from './fixtures.js';

const context = { sessionId: 's1', runId: 'run-1', step: 2 };
const search = { name: 'search', arguments: { query: 'cats' } };

describe('soleToolCommit: which steps a single tool call may commit', () => {
  const cases: Array<[string, Array<{ name: string; arguments: Record<string, unknown> }>, boolean]> = [
    ['one plain server tool call', [search], true],
    ['two server tool calls', [search, { name: 'search', arguments: { query: 'dogs' } }], false],
    ['a server call and a client tool call', [search, { name: 'pick', arguments: { options: [] } }], false],
    ['a server call and an approval-gated call', [search, { name: 'refund', arguments: { amount: 1 } }], false],
    ['a server call and a finishWith call', [search, { name: 'submit', arguments: { report: 'r' } }], false],
    ['a server call and a sub-agent call', [search, { name: 'subagent__summarizer', arguments: { text: 't' } }], false],
    ['a server call and a remote sub-agent call', [search, { name: 'remote__researcher', arguments: { topic: 't' } }], false],
    ['a server call and a companion call', [search, { name: 'companion__listChildren', arguments: {} }], false],
    ['a server call and a rejected call', [search, { name: 'unknown', arguments: {} }], false],
    ['a server call and __finish__', [search, { name: '__finish__', arguments: { answer: 'a', confidence: 1 } }], false],
    ['only a client tool call', [{ name: 'pick', arguments: { options: [] } }], false],
    ['a text answer', [], false],
  ];

  it.each(cases)('%s → %s', (_label, calls, eligible) => {
    const plan = planStepProcessing(stepWith(calls), fullAgent, context);
    expect(soleToolCommit(plan, fullAgent) !== undefined).toBe(eligible);
  });

  it('is refused for an agent with a stopWhen (it reads the committed state in the workflow)', () => {
    const stopping = defineAgent({ name: 'stopping', systemPrompt: 'x', tools: [searchTool], stopWhen: () => false });
    expect(soleToolCommit(planStepProcessing(stepWith([search]), stopping, context), stopping)).toBeUndefined();
  });

  it('commits the same messages the workflow commits: assistant message, the result, the finish reminder', () => {
    const plan = planStepProcessing(stepWith([search], 'Looking.'), fullAgent, context);
    const commit = soleToolCommit(plan, fullAgent);
    const call = plan.serverToolCalls[0]!;
    const outcome: ToolOutcome = { ...call, success: true, result: { hits: 1 }, durationMs: 1 };
    expect(commit?.head).toEqual([plan.assistantMessage]);
    const messages = soleToolCommitMessages(commit!, outcome);
    expect(messages.map((message) => message.id)).toEqual([plan.assistantMessage.id, call.resultMessageId, ...(plan.finishReminder === undefined ? [] : [plan.finishReminder.id])]);
    expect(messages[1]).toMatchObject({ role: 'tool', toolCallId: call.toolCallId, toolName: 'search' });
  });
});

import { describe, expect, it } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import { shouldStopExecution } from '../../../src/orchestration/index.js';
import { fullStepResult, llmOutputOf, recordedLLMOutput, stepDecisionResult, type LLMStepOutput } from '../../../src/orchestration/step-decision-result.js';
import type { StepResult } from '../../../src/types/llm.js';

const result: StepResult = {
  text: 'Looking.',
  thinking: 'hm',
  toolCalls: [{ id: 'c1', name: 'search', arguments: { q: 'a' } }],
  usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
  finishReason: 'tool_calls',
  modelId: 'm',
};
const plain = defineAgent({ name: 'plain', systemPrompt: 'x' });
const stopping = defineAgent({ name: 'stopping', systemPrompt: 'x', stopWhen: ({ stepResult }) => stepResult.usage.totalTokens > 10 });

describe('stepDecisionResult: what an LLM step records for its workflow', () => {
  it.each([
    ['an agent without stopWhen: text, thinking and tool calls, no accounting', plain, { text: 'Looking.', thinking: 'hm', toolCalls: result.toolCalls }],
    ['an agent with stopWhen: the whole result (its stopWhen reads it)', stopping, result],
  ])('%s', (_case, agent, recorded) => {
    expect(stepDecisionResult(result, agent)).toEqual(recorded);
  });

  it('gives a stopWhen the whole result, and refuses loudly one recorded without accounting', () => {
    expect(shouldStopExecution({ agent: stopping, stepResult: stepDecisionResult(result, stopping), stepCount: 1, customState: {} })).toMatchObject({ stop: true, reason: 'stop_when' });
    expect(() => fullStepResult(stepDecisionResult(result, plain))).toThrow(/without its usage and finish reason/);
  });
});

describe('recordedLLMOutput / llmOutputOf: how an LLM step records its output (journal format 2) and reads it back', () => {
  const toolCalls = [{ id: 'c1', name: 'search', arguments: { q: 'a' } }];
  it.each<[string, LLMStepOutput, unknown]>([
    ['tool calls without text: no wrapper, no empty text', { kind: 'result', result: { text: '', toolCalls } }, { toolCalls }],
    ['an answer keeps its text', { kind: 'result', result: { text: 'Hi', toolCalls: [] } }, { text: 'Hi', toolCalls: [] }],
    ['the accounting a stopWhen reads stays', { kind: 'result', result }, result],
    ['an interrupt with its reason', { kind: 'interrupted', reason: 'stop' }, { interrupted: true, reason: 'stop' }],
    ['an interrupt without one', { kind: 'interrupted' }, { interrupted: true }],
  ])('%s', (_case, output, recorded) => {
    expect(recordedLLMOutput(output)).toEqual(recorded);
    expect(llmOutputOf(recordedLLMOutput(output))).toEqual(output);
    // What DBOS hands back is the JSON of the record.
    expect(llmOutputOf(JSON.parse(JSON.stringify(recordedLLMOutput(output))) as never)).toEqual(output);
  });

  it.each<[string, LLMStepOutput]>([
    ['a result', { kind: 'result', result: { text: '', toolCalls } }],
    ['an interrupt', { kind: 'interrupted', reason: 'stop' }],
  ])('reads a format-1 record (the output as is): %s', (_case, output) => {
    expect(llmOutputOf(output)).toEqual(output);
  });
});

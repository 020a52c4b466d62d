import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { defineAgent } from '../../../src/agent/index.js';
import { shouldStopExecution, type StopCheckInput, type StopDecision } from '../../../src/orchestration/index.js';
import { fullAgent, stepWith, textAgent } from './fixtures.js';

const toolStep = stepWith([{ name: 'search', arguments: { query: 'aa' } }], 'thinking out loud');
const textStep = stepWith([], 'The answer is 4.');
const stopAtThree = defineAgent({
  name: 'stopper',
  systemPrompt: 'x',
  maxSteps: 5,
  stopWhen: ({ customState, stepCount }) => customState.done === true || stepCount === 3,
});
const stopStructured = defineAgent({ name: 'stopper2', systemPrompt: 'x', outputSchema: z.object({ a: z.string() }), stopWhen: () => true });

const cases: Array<[string, StopCheckInput, StopDecision]> = [
  [
    '__finish__ output completes with finish_tool',
    { agent: fullAgent, stepResult: toolStep, stepCount: 1, customState: {}, finishOutput: { output: { answer: 'a' } } },
    { stop: true, reason: 'finish_tool', status: 'completed', output: { answer: 'a' } },
  ],
  [
    'finishWith output completes with finish_tool',
    { agent: fullAgent, stepResult: toolStep, stepCount: 1, customState: {}, finishWithOutput: { output: 'report' } },
    { stop: true, reason: 'finish_tool', status: 'completed', output: 'report' },
  ],
  [
    'finish wins over max steps',
    { agent: fullAgent, stepResult: toolStep, stepCount: 10, customState: {}, finishOutput: { output: null } },
    { stop: true, reason: 'finish_tool', status: 'completed', output: null },
  ],
  [
    'text without tools and no outputSchema is a text_response',
    { agent: textAgent, stepResult: textStep, stepCount: 1, customState: {} },
    { stop: true, reason: 'text_response', status: 'completed', output: 'The answer is 4.' },
  ],
  ['text without tools but with outputSchema continues', { agent: fullAgent, stepResult: textStep, stepCount: 1, customState: {} }, { stop: false }],
  ['tool calls below maxSteps continue', { agent: textAgent, stepResult: toolStep, stepCount: 9, customState: {} }, { stop: false }],
  [
    'reaching maxSteps fails',
    { agent: textAgent, stepResult: toolStep, stepCount: 10, customState: {} },
    { stop: true, reason: 'max_steps', status: 'failed', error: 'Max steps exceeded (10)' },
  ],
  [
    'stopWhen on state stops with stop_when',
    { agent: stopAtThree, stepResult: toolStep, stepCount: 1, customState: { done: true } },
    { stop: true, reason: 'stop_when', status: 'completed', output: 'thinking out loud' },
  ],
  [
    'stopWhen on stepCount',
    { agent: stopAtThree, stepResult: toolStep, stepCount: 3, customState: {} },
    { stop: true, reason: 'stop_when', status: 'completed', output: 'thinking out loud' },
  ],
  ['stopWhen false continues', { agent: stopAtThree, stepResult: toolStep, stepCount: 2, customState: {} }, { stop: false }],
  [
    'stopWhen with outputSchema has no output',
    { agent: stopStructured, stepResult: toolStep, stepCount: 1, customState: {} },
    { stop: true, reason: 'stop_when', status: 'completed' },
  ],
  [
    'settled step of an earlier run (no stepResult) with __finish__ completes',
    { agent: textAgent, stepCount: 0, customState: {}, finishOutput: { output: 'done' } },
    { stop: true, reason: 'finish_tool', status: 'completed', output: 'done' },
  ],
  ['settled step of an earlier run without a finish goes on to the LLM', { agent: textAgent, stepCount: 10, customState: {} }, { stop: false }],
];

describe('shouldStopExecution', () => {
  it.each(cases)('%s', (_label, input, expected) => {
    expect(shouldStopExecution(input)).toEqual(expected);
  });

  it('passes stepCount, stepResult and customState to stopWhen', () => {
    const seen: unknown[] = [];
    const agent = defineAgent({ name: 'spy', systemPrompt: 'x', stopWhen: (context) => { seen.push(context); return false; } });
    shouldStopExecution({ agent, stepResult: toolStep, stepCount: 4, customState: { k: 1 } });
    expect(seen).toEqual([{ stepCount: 4, stepResult: toolStep, customState: { k: 1 } }]);
  });
});

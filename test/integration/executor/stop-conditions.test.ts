import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool, type StopWhenContext, type ToolContext } from '../../../src/agent/index.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, scriptedLLM } from './executor-test-kit.js';

type CounterState = { count: number };

const increment = defineTool({
  name: 'increment',
  description: 'Add one to the counter',
  parameters: z.object({}),
  execute: async (_input, context: ToolContext<CounterState>) => {
    context.updateState((draft) => {
      draft.count += 1;
    });
    return { ok: true };
  },
});
const stateSchema = z.object({ count: z.number().default(0) });

const boundedAgent = defineAgent({
  name: 'bounded_agent',
  systemPrompt: 'Keep counting.',
  tools: [increment],
  stateSchema,
  outputSchema: z.object({ done: z.boolean() }),
  maxSteps: 3,
});

const stopWhenSeen: Array<{ stepCount: number; count: number }> = [];
const stoppingAgent = defineAgent({
  name: 'stopping_agent',
  systemPrompt: 'Keep counting.',
  tools: [increment],
  stateSchema,
  maxSteps: 10,
  stopWhen: ({ stepCount, customState }: StopWhenContext<CounterState>) => {
    stopWhenSeen.push({ stepCount, count: customState.count });
    return customState.count >= 2;
  },
});

const chattyAgent = defineAgent({ name: 'chatty_agent', systemPrompt: 'Answer briefly.', maxSteps: 3 });
const structuredAgent = defineAgent({
  name: 'structured_agent',
  systemPrompt: 'Answer with __finish__.',
  outputSchema: z.object({ answer: z.string() }),
  maxSteps: 3,
});

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('executor_stop_conditions', llm.adapter);
});
afterAll(async () => {
  await runtime?.shutdown();
});

const alwaysIncrement = () => ({ type: 'tool_calls' as const, toolCalls: [{ name: 'increment', arguments: {} }] });

describe('stop conditions', () => {
  it('maxSteps fails the run with max_steps after exactly maxSteps LLM calls', async () => {
    llm.use(alwaysIncrement);
    const handle = await runtime.executor.execute(boundedAgent, 'count forever', { sessionId: 'stop-max' });
    const chunks = await collectChunks(handle);
    const result = await handle.result();

    expect(llm.adapter.callCount).toBe(3);
    expect(result).toMatchObject({ status: 'failed', completionReason: 'max_steps', stepCount: 3 });
    expect(result.error).toContain('Max steps exceeded (3)');
    expect(result.output).toBeUndefined();
    const state = await handle.getState();
    expect(state).toMatchObject({ status: 'failed', stepCount: 3, customState: { count: 3 } });
    expect(await runtime.stateStore.getRun('stop-max', handle.runId)).toMatchObject({ status: 'failed', completionReason: 'max_steps', stepCount: 3 });
    expect(chunks.at(-1)).toMatchObject({ type: 'error', recoverable: false });
  });

  it('stopWhen completes the run with stop_when once it returns true, seeing the committed state', async () => {
    llm.use(alwaysIncrement);
    const handle = await runtime.executor.execute(stoppingAgent, 'count to two', { sessionId: 'stop-when' });
    const result = await handle.result();

    expect(llm.adapter.callCount).toBe(2);
    expect(result).toMatchObject({ status: 'completed', completionReason: 'stop_when', stepCount: 2 });
    expect(stopWhenSeen).toEqual([
      { stepCount: 1, count: 1 },
      { stepCount: 2, count: 2 },
    ]);
    expect(await handle.getState()).toMatchObject({ status: 'completed', customState: { count: 2 } });
  });

  it('a text answer without outputSchema completes with text_response and the text as output', async () => {
    llm.use((_input, callIndex) => (callIndex === 0 ? { type: 'text', text: 'Hello there.' } : undefined));
    const handle = await runtime.executor.execute(chattyAgent, 'hi', { sessionId: 'stop-text' });
    const result = await handle.result();

    expect(llm.adapter.callCount).toBe(1);
    expect(result).toMatchObject({ status: 'completed', completionReason: 'text_response', output: 'Hello there.', stepCount: 1 });
    expect(await handle.getState()).toMatchObject({ status: 'completed', output: 'Hello there.' });
  });

  it('a text answer with an outputSchema does not stop: the LLM is reminded to call __finish__', async () => {
    llm.use((_input, callIndex) =>
      callIndex === 0 ? { type: 'text', text: 'The answer is yes.' } : callIndex === 1 ? { type: 'structured_output', output: { answer: 'yes' } } : undefined,
    );
    const handle = await runtime.executor.execute(structuredAgent, 'yes or no?', { sessionId: 'stop-reminder' });
    const result = await handle.result();

    expect(result).toMatchObject({ status: 'completed', completionReason: 'finish_tool', output: { answer: 'yes' }, stepCount: 2 });
    const lastSeen = llm.adapter.calls[1]!.messages.at(-1);
    expect(lastSeen).toMatchObject({ role: 'user', content: expect.stringContaining('__finish__') });
  });
});

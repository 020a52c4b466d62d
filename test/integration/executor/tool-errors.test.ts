import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, scriptedLLM, toolResults } from './executor-test-kit.js';

let additions = 0;
const add = defineTool({
  name: 'add',
  description: 'Add two integers',
  parameters: z.object({ a: z.number().int(), b: z.number().int() }),
  execute: async ({ a, b }) => {
    additions += 1;
    return { sum: a + b };
  },
});

const agent = defineAgent({
  name: 'calculator',
  systemPrompt: 'Compute, then answer with __finish__.',
  tools: [add],
  outputSchema: z.object({ answer: z.number().int() }),
  maxSteps: 5,
});

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('executor_tool_errors', llm.adapter);
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('invalid tool calls become tool errors for the LLM', () => {
  it('an invalid __finish__ output is fed back to the LLM; a valid one then completes the run', async () => {
    llm.use((_input, callIndex) =>
      callIndex === 0
        ? { type: 'structured_output', id: 'f-bad', output: { answer: 'forty-two-secret' } }
        : callIndex === 1
          ? { type: 'structured_output', id: 'f-good', output: { answer: 42 } }
          : undefined,
    );
    const handle = await runtime.executor.execute(agent, 'what is 40 + 2?', { sessionId: 'errors-finish' });
    const result = await handle.result();

    expect(result).toMatchObject({ status: 'completed', completionReason: 'finish_tool', output: { answer: 42 }, stepCount: 2 });
    expect(llm.adapter.callCount).toBe(2);
    const [feedback] = toolResults(llm.adapter.calls[1]!.messages);
    expect(feedback).toMatchObject({ toolCallId: 'f-bad', toolName: '__finish__', isError: true });
    expect(feedback?.content).toEqual(expect.stringContaining('does not match the required schema'));
    expect(String(feedback?.content)).toContain('answer');
    expect(String(feedback?.content)).not.toContain('forty-two-secret');

    const { messages } = await runtime.stateStore.getMessages('errors-finish');
    expect(messages.map((message) => [message.role, message.role === 'tool' ? message.isError === true : null])).toEqual([
      ['user', null],
      ['assistant', null],
      ['tool', true],
      ['assistant', null],
      ['tool', false],
    ]);
  });

  it('invalid arguments and unknown tool names are answered with isError results, valid calls still run', async () => {
    llm.use((_input, callIndex) =>
      callIndex === 0
        ? {
            type: 'tool_calls',
            toolCalls: [
              { id: 'bad-args', name: 'add', arguments: { a: 'one-secret', b: 2 } },
              { id: 'no-such-tool', name: 'multiply', arguments: { a: 6, b: 7 } },
              { id: 'good', name: 'add', arguments: { a: 40, b: 2 } },
            ],
          }
        : callIndex === 1
          ? { type: 'structured_output', output: { answer: 42 } }
          : undefined,
    );
    const before = additions;
    const handle = await runtime.executor.execute(agent, 'add things', { sessionId: 'errors-args' });
    const chunks = await collectChunks(handle);
    const result = await handle.result();

    expect(result).toMatchObject({ status: 'completed', completionReason: 'finish_tool', output: { answer: 42 } });
    expect(additions - before).toBe(1);
    const results = toolResults(llm.adapter.calls[1]!.messages);
    expect(results.map((message) => [message.toolCallId, message.isError === true])).toEqual([
      ['bad-args', true],
      ['no-such-tool', true],
      ['good', false],
    ]);
    expect(results[0]?.content).toEqual(expect.stringContaining('Invalid arguments for tool "add"'));
    expect(String(results[0]?.content)).not.toContain('one-secret');
    expect(results[1]?.content).toEqual(expect.stringContaining('Unknown tool "multiply"'));
    expect(results[1]?.content).toEqual(expect.stringContaining('add'));
    expect(results[2]?.content).toEqual({ sum: 42 });

    const failedEnds = chunks.flatMap((chunk) => (chunk.type === 'tool_end' && chunk.error !== undefined ? [chunk.toolCallId] : []));
    expect(failedEnds.sort()).toEqual(['bad-args', 'no-such-tool']);
    const usage = await runtime.usageStore.getRunUsage('errors-args', handle.runId);
    expect(usage).toMatchObject({ llmCalls: 2, toolCalls: 1, toolFailures: 0 });
  });
});

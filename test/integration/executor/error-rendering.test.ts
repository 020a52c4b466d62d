import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import type { StreamChunk } from '../../../src/types/stream.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, scriptedLLM, toolResults } from './executor-test-kit.js';

/**
 * How errors are rendered: a failed tool's message for the model (bounded, whatever was thrown) versus its
 * sanitized `tool_end` chunk, and an output that fails its schema until the steps run out.
 */
const SECRET = 'sk-live-SECRET123456789';
const thrown: Record<string, unknown> = {
  error: new Error(`upstream refused key ${SECRET} for "private customer note"`),
  string: 'quota exceeded for tenant 7',
  object: { reason: 'quota', retryAfter: 30 },
  long: 'x'.repeat(5_000),
};
const flaky = defineTool({
  name: 'flaky',
  description: 'Throws what it is told to',
  parameters: z.object({ kind: z.string() }),
  execute: async ({ kind }) => {
    throw thrown[kind];
  },
});
const toolAgent = defineAgent({ name: 'tool_errors_agent', systemPrompt: 'Use flaky.', tools: [flaky], maxSteps: 3 });
const structured = defineAgent({ name: 'strict_output', systemPrompt: 'Answer with __finish__.', outputSchema: z.object({ answer: z.string() }), maxSteps: 3 });

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('executor_error_rendering', llm.adapter, { toolRetryPolicy: { maxAttempts: 1 } });
});
afterAll(async () => {
  await runtime?.shutdown();
});

/** Run the tool agent with one call of `flaky` per kind, then a closing text; the model's feedback and the chunks. */
async function runFlaky(sessionId: string, kinds: string[]): Promise<{ feedback: Array<{ toolCallId: string; content: unknown }>; ends: StreamChunk[] }> {
  llm.use((_input, callIndex) =>
    callIndex === 0
      ? { type: 'tool_calls', toolCalls: kinds.map((kind) => ({ id: `call-${kind}`, name: 'flaky', arguments: { kind } })) }
      : callIndex === 1
        ? { type: 'text', text: 'Done.' }
        : undefined,
  );
  const handle = await runtime.executor.execute(toolAgent, 'go', { sessionId });
  const chunks = await collectChunks(handle);
  expect(await handle.result()).toMatchObject({ status: 'completed' });
  return { feedback: toolResults(llm.adapter.calls[1]!.messages), ends: chunks.filter((chunk) => chunk.type === 'tool_end') };
}

describe('a failed tool call', () => {
  it('shows the model what was thrown (a string, an object, bounded), never "Unknown error"', async () => {
    const { feedback } = await runFlaky('render-thrown', ['string', 'object', 'long']);
    const content = (id: string): string => String(feedback.find((result) => result.toolCallId === id)?.content);
    expect(content('call-string')).toBe('Tool "flaky" failed: quota exceeded for tenant 7');
    expect(content('call-object')).toBe('Tool "flaky" failed: {"reason":"quota","retryAfter":30}');
    expect(content('call-long').length).toBeLessThanOrEqual('Tool "flaky" failed: '.length + 200);
    expect(content('call-long')).toMatch(/^Tool "flaky" failed: x+…$/);
    for (const result of feedback) expect(String(result.content)).not.toContain('Unknown error');
  });

  it('gives the model its own (redacted) message, and streams only a typed, sanitized tool_end error', async () => {
    const { feedback, ends } = await runFlaky('render-error', ['error']);
    expect(feedback[0]?.content).toBe('Tool "flaky" failed: Error: upstream refused key [redacted] for "private customer note"');
    expect(ends).toEqual([expect.objectContaining({ toolCallId: 'call-error', error: 'TOOL_ERROR: Tool "flaky" failed (Error); the cause is logged at debug level.' })]);
    expect(JSON.stringify(ends)).not.toContain('private customer note');
    const { messages } = await runtime.stateStore.getMessages('render-error');
    expect(JSON.stringify(messages)).not.toContain(SECRET);
  });
});

describe('an output that fails its schema', () => {
  it('tells the model where (path and code, no values) and says so in the error when the steps run out', async () => {
    llm.use(() => ({ type: 'structured_output', output: { answer: 987_654 } }));
    const handle = await runtime.executor.execute(structured, 'answer', { sessionId: 'render-output' });
    const chunks = await collectChunks(handle);
    const result = await handle.result();

    expect(result).toMatchObject({ status: 'failed', completionReason: 'max_steps', stepCount: 3 });
    expect(result.error).toBe('Output failed validation at $.answer (invalid_type); max steps exceeded (3)');
    expect(chunks.at(-1)).toMatchObject({ type: 'error', error: result.error });
    expect((await runtime.stateStore.loadState('render-output'))?.error).toBe(result.error);
    const [feedback] = toolResults(llm.adapter.calls[1]!.messages);
    expect(String(feedback?.content)).toContain('Output failed validation at $.answer (invalid_type)');
    expect(String(feedback?.content)).toContain('Call __finish__ again');
    expect(String(feedback?.content)).not.toContain('987654');
  });
});

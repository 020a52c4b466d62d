import type { AgentExecutionHandle } from '../../../src/executor/types.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import type { MockLLMScript } from '../../../src/llm/mock/mock-llm-response.js';
import type { Message } from '../../../src/types/message.js';
import type { StreamChunk } from '../../../src/types/stream.js';

/**
 * A MockLLMAdapter (function form) whose script a test swaps per run: one adapter per runtime, one script
 * per test. `use` also restarts the adapter's call log.
 *
 * @example
 * const llm = scriptedLLM();
 * llm.use((_input, callIndex) => (callIndex === 0 ? { type: 'text', text: 'hi' } : undefined));
 */
export interface ScriptedLLM {
  adapter: MockLLMAdapter;
  use(script: MockLLMScript): void;
}

/**
 * Create a {@link ScriptedLLM} (scripts default to "no response", which fails the run loudly).
 *
 * @example
 * const llm = scriptedLLM();
 * runtime = await startTestRuntime('my_prefix', llm.adapter);
 */
export function scriptedLLM(): ScriptedLLM {
  let script: MockLLMScript = () => undefined;
  const adapter = new MockLLMAdapter((input, callIndex) => script(input, callIndex));
  return {
    adapter,
    use(next) {
      script = next;
      adapter.reset();
    },
  };
}

/**
 * Read a handle's whole stream (until the run's terminal chunk).
 *
 * @example
 * const chunks = await collectChunks(handle);
 */
export async function collectChunks(handle: AgentExecutionHandle<unknown>): Promise<StreamChunk[]> {
  const chunks: StreamChunk[] = [];
  for await (const chunk of handle.stream()) chunks.push(chunk);
  return chunks;
}

/**
 * The text a UI shows after applying reset semantics: a `step_reset` chunk of step n drops every earlier
 * chunk of step n (of the same agent); the remaining `text_delta`s are concatenated.
 *
 * @example
 * expect(visibleText(chunks)).toBe('Final answer.');
 */
export function visibleText(chunks: readonly StreamChunk[]): string {
  let kept: StreamChunk[] = [];
  for (const chunk of chunks) {
    if (chunk.type === 'step_reset') {
      kept = kept.filter((earlier) => earlier.step !== chunk.step || earlier.agentId !== chunk.agentId);
    }
    kept.push(chunk);
  }
  return textOf(kept);
}

/**
 * The concatenated `text_delta`s of some chunks, without reset semantics.
 *
 * @example
 * expect(textOf(chunks)).toContain('Partial');
 */
export function textOf(chunks: readonly StreamChunk[]): string {
  return chunks.map((chunk) => (chunk.type === 'text_delta' ? chunk.delta : '')).join('');
}

/**
 * The tool result messages among an LLM call's input messages.
 *
 * @example
 * expect(toolResults(llm.adapter.calls[1]!.messages)).toEqual([expect.objectContaining({ isError: true })]);
 */
export function toolResults(messages: readonly Message[]): Array<Extract<Message, { role: 'tool' }>> {
  return messages.filter((message): message is Extract<Message, { role: 'tool' }> => message.role === 'tool');
}

/**
 * Resolve after `ms` milliseconds.
 *
 * @example
 * await sleep(50);
 */
export async function sleep(ms: number): Promise<void> {
  await new Promise<void>((resolve) => setTimeout(resolve, ms));
}

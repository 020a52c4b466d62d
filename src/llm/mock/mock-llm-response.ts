import type { FinishReason, LLMGenerateInput, TokenUsage } from '../../types/llm.js';

/**
 * Settings every scripted response may carry.
 *
 * @example
 * const slow: MockLLMResponse = { type: 'text', text: 'a b c', delayMs: 500, chunkDelayMs: 50, usage: { inputTokens: 100 } };
 */
export interface MockLLMResponseTiming {
  /** Token usage to report; missing fields default to 10 input / 5 output tokens, total = input + output. */
  usage?: Partial<TokenUsage>;
  /** Milliseconds to wait before the first delta (or before throwing, for `error`). Default 0. */
  delayMs?: number;
  /** Milliseconds to wait between streamed deltas. Default 0. */
  chunkDelayMs?: number;
  /** Overrides the finish reason (defaults: `stop` for text, `tool_calls` for tool calls). */
  finishReason?: FinishReason;
}

/**
 * A scripted plain-text answer, streamed word by word.
 *
 * @example
 * const answer: MockTextResponse = { type: 'text', text: 'Done.', thinking: 'The user wants a short reply.' };
 */
export interface MockTextResponse extends MockLLMResponseTiming {
  type: 'text';
  text: string;
  thinking?: string;
}

/**
 * A scripted tool call request. Ids default to `mock-call-${callIndex}-${i}`. `subAgentCalls` are shorthand
 * for calls of the `subagent__${agentType}` tools, appended after `toolCalls`.
 *
 * @example
 * const calls: MockToolCallsResponse = {
 *   type: 'tool_calls',
 *   toolCalls: [{ name: 'search', arguments: { q: 'dbos' } }],
 *   subAgentCalls: [{ id: 's1', agentType: 'summarizer', input: { texts: ['text1'] } }],
 * };
 */
export interface MockToolCallsResponse extends MockLLMResponseTiming {
  type: 'tool_calls';
  toolCalls: Array<{ id?: string; name: string; arguments: Record<string, unknown> }>;
  subAgentCalls?: Array<{ id?: string; agentType: string; input: Record<string, unknown> }>;
  text?: string;
  thinking?: string;
}

/**
 * A scripted structured result: becomes a `__finish__` tool call whose arguments are `output`.
 *
 * @example
 * const finish: MockStructuredOutputResponse = { type: 'structured_output', output: { answer: 42 } };
 */
export interface MockStructuredOutputResponse extends MockLLMResponseTiming {
  type: 'structured_output';
  output: Record<string, unknown>;
  /** Id of the `__finish__` call; defaults to `mock-call-${callIndex}-0`. */
  id?: string;
  text?: string;
}

/**
 * A scripted failure: the call throws `LLMCallError` (`retryable` defaults to false).
 *
 * @example
 * const rateLimited: MockErrorResponse = { type: 'error', message: 'rate limited', retryable: true, statusCode: 429 };
 */
export interface MockErrorResponse {
  type: 'error';
  message: string;
  retryable?: boolean;
  statusCode?: number;
  delayMs?: number;
}

/**
 * One scripted LLM step for `MockLLMAdapter`.
 *
 * @example
 * const steps: MockLLMResponse[] = [
 *   { type: 'tool_calls', toolCalls: [{ name: 'search', arguments: { q: 'dbos' } }] },
 *   { type: 'structured_output', output: { answer: 'DBOS is durable' } },
 * ];
 */
export type MockLLMResponse = MockTextResponse | MockToolCallsResponse | MockStructuredOutputResponse | MockErrorResponse;

/**
 * Computes the response of call `callIndex` (0-based); return `undefined` to signal that the script ran out.
 *
 * @example
 * const script: MockLLMScript = (input, callIndex) => ({ type: 'text', text: `call ${callIndex}, ${input.messages.length} messages` });
 */
export type MockLLMScript = (
  input: LLMGenerateInput,
  callIndex: number,
) => MockLLMResponse | undefined | Promise<MockLLMResponse | undefined>;

/**
 * Splits text into word-sized deltas that concatenate back to the exact input (whitespace stays attached to
 * the preceding word; leading whitespace to the first). Empty text gives no deltas.
 *
 * @example
 * splitIntoWords('Hello big world'); // ['Hello ', 'big ', 'world']
 */
export function splitIntoWords(text: string): string[] {
  if (text.length === 0) return [];
  const words = text.match(/\S+\s*/g) ?? [];
  const leading = /^\s+/.exec(text)?.[0] ?? '';
  if (words.length === 0) return [text];
  if (leading.length > 0) words[0] = leading + words[0];
  return words;
}

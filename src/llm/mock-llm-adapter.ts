import { LLMCallError } from '../errors/index.js';
import type { LLMGenerateInput, LLMStreamCallbacks, StepResult, TokenUsage } from '../types/llm.js';
import type { ToolCall } from '../types/message.js';
import type { LLMAdapter } from './adapter.js';
import { FINISH_TOOL_NAME, SUBAGENT_TOOL_PREFIX } from '../agent/tool-names.js';
import { splitIntoWords } from './mock/mock-llm-response.js';
import type { MockLLMResponse, MockLLMResponseTiming, MockLLMScript } from './mock/mock-llm-response.js';

/**
 * A recorded call: the input as it was passed, deep-copied (without the abort signal).
 *
 * @example
 * const lastCall: MockLLMCall | undefined = llm.calls.at(-1);
 * expect(lastCall?.messages.at(-1)).toMatchObject({ role: 'tool', toolName: 'search' });
 */
export type MockLLMCall = Omit<LLMGenerateInput, 'abortSignal'>;

/**
 * Options of `MockLLMAdapter`.
 *
 * @example
 * const options: MockLLMAdapterOptions = { recordInputs: false }; // a 1,000-step session keeps no history copies
 */
export interface MockLLMAdapterOptions {
  /**
   * Keep a deep copy of every call's input in `calls` (default true). A copy holds the whole history, so a
   * long session's record grows with the square of its length: benchmarks and long runs pass `false`, and
   * then `calls` stays empty while `callCount` still counts every call.
   */
  recordInputs?: boolean;
  /** The key its calls are limited under by a `modelLimiter` (default `mock:mock-model`). */
  modelKey?: string;
}

/**
 * Scripted `LLMAdapter` for tests: each call consumes the next response of a list (or asks a function),
 * streams its text word by word through the callbacks, and records the input.
 *
 * Responses: `{ type: 'text', text, thinking? }`, `{ type: 'tool_calls', toolCalls, text? }`,
 * `{ type: 'structured_output', output }` (a `__finish__` tool call) and `{ type: 'error', message, retryable? }`;
 * each may set `usage`, `delayMs`, `chunkDelayMs`. Tool call ids default to `mock-call-${callIndex}-${i}`.
 *
 * @throws LLMCallError for scripted errors, when the script runs out (retryable false), and when the input's
 *   abort signal fires (retryable false).
 * @example
 * const llm = new MockLLMAdapter([
 *   { type: 'tool_calls', toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] },
 *   { type: 'text', text: 'The sum is 3.' },
 * ]);
 * const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter: llm });
 * // … run the agent, then:
 * expect(llm.callCount).toBe(2);
 */
export class MockLLMAdapter implements LLMAdapter {
  /** Every call's input, in call order (empty when constructed with `recordInputs: false`). */
  readonly calls: MockLLMCall[] = [];
  private readonly script: MockLLMScript;
  private readonly recordInputs: boolean;
  private readonly key: string;
  private calledTimes = 0;

  constructor(responses: readonly MockLLMResponse[] | MockLLMScript, options: MockLLMAdapterOptions = {}) {
    this.recordInputs = options.recordInputs ?? true;
    this.key = options.modelKey ?? 'mock:mock-model';
    if (typeof responses === 'function') {
      this.script = responses;
    } else {
      const list = [...responses];
      this.script = (_input, callIndex) => list[callIndex];
    }
  }

  /** The key its calls are limited under (`options.modelKey`). */
  modelKey(): string {
    return this.key;
  }

  /** How many times `generateStep` was called (including calls that threw). */
  get callCount(): number {
    return this.calledTimes;
  }

  /**
   * Forgets the recorded calls and restarts the script at its first response.
   *
   * @example
   * llm.reset(); // llm.callCount === 0, the next call gets responses[0]
   */
  reset(): void {
    this.calls.length = 0;
    this.calledTimes = 0;
  }

  /**
   * Plays the next scripted response.
   *
   * @example
   * const result = await llm.generateStep({ messages: [{ role: 'user', content: 'hi' }], tools: [], config: {} });
   */
  async generateStep(input: LLMGenerateInput, callbacks?: LLMStreamCallbacks): Promise<StepResult> {
    const callIndex = this.calledTimes;
    this.calledTimes += 1;
    if (this.recordInputs) this.calls.push(copyInput(input));
    const response = await this.script(input, callIndex);
    if (response === undefined) {
      throw new LLMCallError(
        `MockLLMAdapter has no scripted response for call ${callIndex + 1}; add more responses to the script.`,
        { retryable: false },
      );
    }
    await pause(response.delayMs, input.abortSignal);
    if (response.type === 'error') {
      throw new LLMCallError(response.message, {
        retryable: response.retryable ?? false,
        ...(response.statusCode === undefined ? {} : { statusCode: response.statusCode }),
      });
    }

    const text = response.text ?? '';
    const thinking = response.type === 'structured_output' ? undefined : response.thinking;
    const toolCalls = toToolCalls(response, callIndex);
    const chunkDelayMs = response.chunkDelayMs;

    for (const delta of splitIntoWords(thinking ?? '')) {
      await callbacks?.onThinkingDelta?.(delta);
      await pause(chunkDelayMs, input.abortSignal);
    }
    for (const delta of splitIntoWords(text)) {
      await callbacks?.onTextDelta?.(delta);
      await pause(chunkDelayMs, input.abortSignal);
    }
    for (const toolCall of toolCalls) {
      const argumentsDelta = JSON.stringify(toolCall.arguments);
      await callbacks?.onToolCallDelta?.({ toolCallId: toolCall.id, toolName: toolCall.name, argumentsDelta });
      await callbacks?.onToolCall?.(toolCall);
      await pause(chunkDelayMs, input.abortSignal);
    }

    return {
      text,
      ...(thinking === undefined || thinking.length === 0 ? {} : { thinking }),
      toolCalls,
      usage: toUsage(response.usage),
      finishReason: response.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      modelId: 'mock-model',
    };
  }
}

/** The tool calls of a scripted response, with deterministic ids and copied arguments. */
function toToolCalls(response: Exclude<MockLLMResponse, { type: 'error' }>, callIndex: number): ToolCall[] {
  if (response.type === 'text') return [];
  if (response.type === 'structured_output') {
    const id = response.id ?? `mock-call-${callIndex}-0`;
    return [{ id, name: FINISH_TOOL_NAME, arguments: structuredClone(response.output) }];
  }
  const requested = [
    ...response.toolCalls,
    ...(response.subAgentCalls ?? []).map((call) => ({ id: call.id, name: `${SUBAGENT_TOOL_PREFIX}${call.agentType}`, arguments: call.input })),
  ];
  return requested.map((toolCall, index) => ({
    id: toolCall.id ?? `mock-call-${callIndex}-${index}`,
    name: toolCall.name,
    arguments: structuredClone(toolCall.arguments),
  }));
}

function toUsage(usage: MockLLMResponseTiming['usage']): TokenUsage {
  const inputTokens = usage?.inputTokens ?? 10;
  const outputTokens = usage?.outputTokens ?? 5;
  return {
    ...usage,
    inputTokens,
    outputTokens,
    totalTokens: usage?.totalTokens ?? inputTokens + outputTokens,
  };
}

/** A deep copy of the messages and tools; `config` is copied shallowly (`model` is a live object). */
function copyInput(input: LLMGenerateInput): MockLLMCall {
  const { abortSignal: _abortSignal, config, messages, tools, ...rest } = input;
  return { ...rest, messages: structuredClone(messages), tools: structuredClone(tools), config: { ...config } };
}

/** Waits `ms` (if positive), failing fast with a non-retryable LLMCallError when the signal aborts. */
async function pause(ms: number | undefined, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted === true) throw abortedError();
  if (ms === undefined || ms <= 0) return;
  await new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function abortedError(): LLMCallError {
  return new LLMCallError('The LLM call was aborted.', { retryable: false });
}

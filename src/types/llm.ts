import type { Message, ToolCall } from './message.js';

/**
 * Token counts of one LLM call.
 *
 * @example
 * const usage: TokenUsage = { inputTokens: 120, outputTokens: 30, totalTokens: 150 };
 */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  reasoningTokens?: number;
  cachedInputTokens?: number;
}

/** Why the model stopped generating. */
export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'error' | 'other';

/**
 * A tool as the LLM sees it: name, description and the JSON Schema of its parameters.
 *
 * @example
 * const schema: ToolSchema = { name: 'get_weather', description: 'Forecast', inputSchema: { type: 'object', properties: {} } };
 */
export interface ToolSchema {
  name: string;
  description: string;
  /** JSON Schema (draft 7 / 2020-12 object schema), e.g. from `z.toJSONSchema(parameters)`. */
  inputSchema: Record<string, unknown>;
}

/**
 * Model settings of an agent.
 *
 * @example
 * defineAgent({ name: 'a', systemPrompt: 'x', llmConfig: { model: openai('gpt-4o-mini'), temperature: 0 } });
 */
export interface LLMConfig {
  /** A live AI SDK LanguageModel (or any model object the adapter understands). Overrides the adapter's default. */
  model?: unknown;
  temperature?: number;
  maxOutputTokens?: number;
  /**
   * Prompt caching: one strategy or several, e.g. `anthropicCache()`. Applied inside the LLM step (the agent is
   * resolved from the process registry, so nothing is serialized); an unknown strategy is refused by `defineAgent`.
   */
  cache?: CacheStrategy | readonly CacheStrategy[];
}

/**
 * Anthropic-style prompt caching: a cache breakpoint (`cache_control`) on the system prompt and on the last
 * result of the latest tool-result batch, sent as AI SDK `providerOptions.anthropic.cacheControl`. Other
 * providers ignore it. Build it with `anthropicCache()`.
 *
 * @example
 * const strategy: AnthropicCacheStrategy = { type: 'anthropic', ttl: '1h' };
 */
export interface AnthropicCacheStrategy {
  readonly type: 'anthropic';
  /** Cache lifetime; default the provider's (5 minutes). */
  readonly ttl?: '5m' | '1h';
}

/**
 * A prompt-cache strategy of `LLMConfig.cache`.
 *
 * @example
 * const cache: CacheStrategy = anthropicCache();
 */
export type CacheStrategy = AnthropicCacheStrategy;

/**
 * Everything an adapter needs for one step. All JSON except `abortSignal` and `config.model`.
 *
 * @example
 * const input: LLMGenerateInput = { messages: [{ role: 'user', content: 'Hi' }], tools: [], config: {} };
 */
export interface LLMGenerateInput {
  /** System message first, then the conversation. */
  messages: Message[];
  tools: ToolSchema[];
  config: LLMConfig;
  abortSignal?: AbortSignal;
  /** For logging and mock scripting. */
  agentType?: string;
  sessionId?: string;
  step?: number;
  /** Bounds on tool-call arguments; an adapter answers calls past them as invalid (default: the adapter's). */
  toolArgumentLimits?: { maxDepth: number; maxBytes: number };
}

/** Streaming callbacks; adapters call them while the model is still generating. */
export interface LLMStreamCallbacks {
  onTextDelta?(delta: string): void | Promise<void>;
  onThinkingDelta?(delta: string): void | Promise<void>;
  /** A fragment of a tool call's JSON arguments (`argumentsDelta` concatenates to the full text). */
  onToolCallDelta?(delta: { toolCallId: string; toolName: string; argumentsDelta: string }): void | Promise<void>;
  /** A complete tool call. */
  onToolCall?(toolCall: ToolCall): void | Promise<void>;
}

/**
 * The compact result of one LLM step: small and JSON-serializable (it is checkpointed).
 *
 * @example
 * const step: StepResult = await adapter.generateStep({ messages, tools: [], config: {} });
 */
export interface StepResult {
  text: string;
  thinking?: string;
  toolCalls: ToolCall[];
  usage: TokenUsage;
  finishReason: FinishReason;
  /** Provider model id, when known. */
  modelId?: string;
  /**
   * Tool calls whose arguments were not a JSON object (unparsable or truncated JSON). Each also appears in
   * `toolCalls` with `arguments: {}`; answer it with a tool error (the `error` text) instead of executing it.
   */
  invalidToolCalls?: InvalidToolCall[];
}

/** A tool call the adapter could not parse, with a model-facing explanation. */
export interface InvalidToolCall {
  toolCallId: string;
  toolName: string;
  /** Safe to feed back to the model, e.g. `Tool arguments were not a valid JSON object.` */
  error: string;
}

import type { FinishReason as SdkFinishReason, LanguageModelUsage } from 'ai';
import type { FinishReason, TokenUsage } from '../../types/llm.js';

/**
 * Maps the AI SDK's finish reason to ours (`tool-calls` → `tool_calls`, `content-filter` →
 * `content_filter`); a missing reason (the stream ended without a `finish` part) becomes `other`.
 *
 * @example
 * toFinishReason('tool-calls'); // 'tool_calls'
 */
export function toFinishReason(reason: SdkFinishReason | undefined): FinishReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool-calls':
      return 'tool_calls';
    case 'content-filter':
      return 'content_filter';
    case 'error':
      return 'error';
    default:
      return 'other';
  }
}

/**
 * Maps the AI SDK's usage (fields may be undefined) to our `TokenUsage` (always numbers). A missing total is
 * input + output; reasoning and cached-input counts are copied only when the provider reported them.
 *
 * @example
 * toTokenUsage(result.totalUsage); // { inputTokens: 12, outputTokens: 5, totalTokens: 17 }
 */
export function toTokenUsage(usage: LanguageModelUsage | undefined): TokenUsage {
  const inputTokens = usage?.inputTokens ?? 0;
  const outputTokens = usage?.outputTokens ?? 0;
  const reasoningTokens = usage?.outputTokenDetails?.reasoningTokens ?? usage?.reasoningTokens;
  const cachedInputTokens = usage?.inputTokenDetails?.cacheReadTokens ?? usage?.cachedInputTokens;
  return {
    inputTokens,
    outputTokens,
    totalTokens: usage?.totalTokens ?? inputTokens + outputTokens,
    ...(reasoningTokens === undefined ? {} : { reasoningTokens }),
    ...(cachedInputTokens === undefined ? {} : { cachedInputTokens }),
  };
}

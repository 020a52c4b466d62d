import { toCacheStrategies } from '../orchestration/prompt-cache.js';
import type { AnthropicCacheStrategy } from '../types/llm.js';

/**
 * The Anthropic prompt-cache strategy for `llmConfig.cache`: cache breakpoints on the system prompt (which
 * includes the skills catalog) and on the latest tool-result batch. Applied by `VercelAIAdapter` as
 * `providerOptions.anthropic.cacheControl`, which `@ai-sdk/anthropic` sends as `cache_control`.
 *
 * @throws ConfigurationError `INVALID_AGENT_CONFIG` for a ttl other than '5m' or '1h'.
 * @example
 * import { anthropic } from '@ai-sdk/anthropic';
 * defineAgent({ name: 'a', systemPrompt: longPrompt, llmConfig: { model: anthropic('claude-sonnet-4-5'), cache: anthropicCache() } });
 */
export function anthropicCache(options: { ttl?: '5m' | '1h' } = {}): AnthropicCacheStrategy {
  const strategy: AnthropicCacheStrategy = Object.freeze({ type: 'anthropic' as const, ...(options.ttl === undefined ? {} : { ttl: options.ttl }) });
  toCacheStrategies(strategy);
  return strategy;
}

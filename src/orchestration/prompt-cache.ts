import { ConfigurationError } from '../errors/index.js';
import type { CacheStrategy } from '../types/llm.js';
import type { Message } from '../types/message.js';

/**
 * Provider options to attach to one message of an LLM call, keyed by provider (AI SDK `providerOptions`).
 *
 * @example
 * const breakpoint: CacheBreakpoint = { messageIndex: 0, providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } };
 */
export interface CacheBreakpoint {
  /** Index into the messages of the call (the system prompt is index 0). */
  messageIndex: number;
  providerOptions: Record<string, Record<string, unknown>>;
}

const KNOWN_STRATEGIES = new Set(['anthropic']);
const KNOWN_TTLS = new Set(['5m', '1h']);

/**
 * `LLMConfig.cache` as a list of strategies (`undefined` → `[]`).
 *
 * @throws ConfigurationError `INVALID_AGENT_CONFIG` for anything that is not a known strategy (build them with
 *   `anthropicCache()`).
 * @example
 * toCacheStrategies(anthropicCache()); // [{ type: 'anthropic' }]
 */
export function toCacheStrategies(cache: unknown): readonly CacheStrategy[] {
  if (cache === undefined) return [];
  const strategies: unknown[] = Array.isArray(cache) ? cache : [cache];
  for (const strategy of strategies) {
    const { type, ttl } = (typeof strategy === 'object' && strategy !== null ? strategy : {}) as { type?: unknown; ttl?: unknown };
    if (typeof type !== 'string' || !KNOWN_STRATEGIES.has(type)) {
      throw new ConfigurationError(
        'INVALID_AGENT_CONFIG',
        'llmConfig.cache must be a cache strategy or an array of them; the supported strategy is anthropicCache().',
      );
    }
    if (ttl !== undefined && (typeof ttl !== 'string' || !KNOWN_TTLS.has(ttl))) {
      throw new ConfigurationError('INVALID_AGENT_CONFIG', 'anthropicCache ttl must be "5m" or "1h".');
    }
  }
  return strategies as CacheStrategy[];
}

/**
 * Where the strategies put cache breakpoints in one call's messages. Anthropic: the leading system message and
 * the last message of the latest tool-result batch (at most 2 of Anthropic's 4 breakpoints). Both positions only
 * move forward as the append-only history grows, so earlier prefixes stay cached.
 *
 * @example
 * planCacheBreakpoints([system, user, assistant, toolA, toolB], [anthropicCache()]).map((b) => b.messageIndex); // [0, 4]
 */
export function planCacheBreakpoints(messages: readonly Pick<Message, 'role'>[], strategies: readonly CacheStrategy[]): CacheBreakpoint[] {
  const breakpoints: CacheBreakpoint[] = [];
  for (const strategy of strategies) {
    if (strategy.type !== 'anthropic') continue;
    const cacheControl = { type: 'ephemeral', ...(strategy.ttl === undefined ? {} : { ttl: strategy.ttl }) };
    const indices = new Set<number>();
    if (messages[0]?.role === 'system') indices.add(0);
    const lastToolResult = messages.map((message) => message.role).lastIndexOf('tool');
    if (lastToolResult >= 0) indices.add(lastToolResult);
    for (const messageIndex of [...indices].sort((left, right) => left - right)) {
      breakpoints.push({ messageIndex, providerOptions: { anthropic: { cacheControl } } });
    }
  }
  return breakpoints;
}

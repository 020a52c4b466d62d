import { createAnthropic } from '@ai-sdk/anthropic';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { anthropicCache } from '../../../src/llm/anthropic-cache.js';
import { VercelAIAdapter } from '../../../src/llm/vercel-ai-adapter.js';
import type { Message } from '../../../src/types/message.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fixtures/fake-anthropic/fake-anthropic-server.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';

interface AnthropicBlock {
  type: string;
  text?: string;
  tool_use_id?: string;
  cache_control?: unknown;
}
interface AnthropicBody {
  system?: AnthropicBlock[];
  messages: Array<{ role: string; content: AnthropicBlock[] }>;
}

const EPHEMERAL = { type: 'ephemeral' };

/** Every block of a request that carries `cache_control`, as `where: cache_control`. */
function cacheMarkers(body: unknown): Record<string, unknown> {
  const { system = [], messages } = body as AnthropicBody;
  const markers: Record<string, unknown> = {};
  system.forEach((block, index) => {
    if (block.cache_control !== undefined) markers[`system[${index}]`] = block.cache_control;
  });
  messages.forEach((message, messageIndex) =>
    message.content.forEach((block, blockIndex) => {
      if (block.cache_control === undefined) return;
      const label = block.type === 'tool_result' ? `tool_result ${block.tool_use_id}` : `${message.role}[${messageIndex}].${block.type}[${blockIndex}]`;
      markers[label] = block.cache_control;
    }),
  );
  return markers;
}

const conversation: Message[] = [
  { role: 'system', content: 'You are a careful assistant with a long, cacheable prompt.' },
  { role: 'user', content: 'Check both cities, then the weather.' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_a', name: 'lookup', arguments: { city: 'Oslo' } }, { id: 'toolu_b', name: 'lookup', arguments: { city: 'Rome' } }] },
  { role: 'tool', toolCallId: 'toolu_a', toolName: 'lookup', content: { found: true } },
  { role: 'tool', toolCallId: 'toolu_b', toolName: 'lookup', content: { found: true } },
  { role: 'assistant', content: 'Now the weather.', toolCalls: [{ id: 'toolu_c', name: 'weather', arguments: { city: 'Oslo' } }, { id: 'toolu_d', name: 'weather', arguments: { city: 'Rome' } }] },
  { role: 'tool', toolCallId: 'toolu_c', toolName: 'weather', content: 'sunny' },
  { role: 'tool', toolCallId: 'toolu_d', toolName: 'weather', content: 'rain' },
];
const tools = [
  { name: 'lookup', description: 'Look a city up', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } },
  { name: 'weather', description: 'Weather of a city', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } },
];

describe('anthropicCache through the real @ai-sdk/anthropic client', () => {
  let fake: FakeAnthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic([{ type: 'text', text: 'ok' }, { type: 'text', text: 'ok' }, { type: 'text', text: 'ok' }]);
  });
  afterAll(async () => {
    await fake?.close();
  });

  it('marks the system prompt and the last result of the latest tool batch, nothing else', async () => {
    const adapter = new VercelAIAdapter({ model: createAnthropic({ baseURL: fake.baseURL, apiKey: 'test' })('claude-sonnet-4-5') });
    const result = await adapter.generateStep({ messages: conversation, tools, config: { cache: anthropicCache() } });
    expect(result.text).toBe('ok');
    expect(cacheMarkers(fake.requests[0])).toEqual({ 'system[0]': EPHEMERAL, 'tool_result toolu_d': EPHEMERAL });
    const body = fake.requests[0] as AnthropicBody;
    expect(body.system?.[0]?.text).toBe('You are a careful assistant with a long, cacheable prompt.');
  });

  it('sends the ttl, and sends no cache_control at all without a strategy', async () => {
    const adapter = new VercelAIAdapter({ model: createAnthropic({ baseURL: fake.baseURL, apiKey: 'test' })('claude-sonnet-4-5') });
    await adapter.generateStep({ messages: conversation, tools, config: { cache: anthropicCache({ ttl: '1h' }) } });
    expect(cacheMarkers(fake.requests[1])).toEqual({
      'system[0]': { type: 'ephemeral', ttl: '1h' },
      'tool_result toolu_d': { type: 'ephemeral', ttl: '1h' },
    });
    await adapter.generateStep({ messages: conversation, tools, config: {} });
    expect(cacheMarkers(fake.requests[2])).toEqual({});
    expect(JSON.stringify(fake.requests[2])).not.toContain('cache_control');
  });
});

describe('llmConfig.cache on a durable run', () => {
  let fake: FakeAnthropic;
  let runtime: TestRuntime;
  beforeAll(async () => {
    fake = await startFakeAnthropic([
      { type: 'tool_use', calls: [{ id: 'toolu_1', name: 'ping', input: { n: 1 } }, { id: 'toolu_2', name: 'ping', input: { n: 2 } }] },
      { type: 'text', text: 'pong twice' },
    ]);
    const model = createAnthropic({ baseURL: fake.baseURL, apiKey: 'test' })('claude-sonnet-4-5');
    runtime = await startTestRuntime('prompt_cache', new VercelAIAdapter({ model }));
  });
  afterAll(async () => {
    await runtime?.shutdown();
    await fake?.close();
  });

  it('applies the agent\'s strategy inside the LLM step on every call', async () => {
    const ping = defineTool({ name: 'ping', description: 'Ping', parameters: z.object({ n: z.number() }), execute: async ({ n }) => ({ pong: n }) });
    const agent = defineAgent({
      name: 'cached_anthropic_agent',
      systemPrompt: 'Ping twice, then answer.',
      tools: [ping],
      llmConfig: { cache: anthropicCache() },
      skills: [{ name: 'ping-etiquette', description: 'How to ping politely.', body: 'Say please.' }],
    });
    const handle = await runtime.executor.execute(agent, 'go', { sessionId: 'cache-run' });
    expect(await handle.result()).toMatchObject({ status: 'completed', output: 'pong twice' });

    expect(fake.requests).toHaveLength(2);
    expect(cacheMarkers(fake.requests[0])).toEqual({ 'system[0]': EPHEMERAL });
    expect(cacheMarkers(fake.requests[1])).toEqual({ 'system[0]': EPHEMERAL, 'tool_result toolu_2': EPHEMERAL });
    // The breakpoint on the system prompt covers the skills catalog appended to it.
    const system = (fake.requests[1] as AnthropicBody).system?.[0]?.text ?? '';
    expect(system.startsWith('Ping twice, then answer.\n\n## Skills')).toBe(true);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { anthropicCache } from '../../../src/llm/anthropic-cache.js';
import type { MockLLMScript } from '../../../src/llm/mock/mock-llm-response.js';
import type { AgentStartEvent } from '../../../src/hooks/types.js';
import type { Message } from '../../../src/types/message.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from './executor-test-kit.js';

const ping = defineTool({ name: 'ping', description: 'Ping', parameters: z.object({}), execute: async () => 'pong' });

const starts: AgentStartEvent[] = [];
const agent = defineAgent({
  name: 'turn_agent',
  systemPrompt: 'Ping, then answer.',
  tools: [ping],
  maxSteps: 2,
  hooks: { onAgentStart: (event) => void starts.push(event) },
});

/** Every memory method a runtime could plausibly call; each call is recorded. */
const memoryCalls: string[] = [];
const memory = Object.fromEntries(
  ['recall', 'retrieve', 'search', 'store', 'save', 'add', 'extract', 'inject', 'get', 'set'].map((name) => [
    name,
    (..._args: unknown[]) => {
      memoryCalls.push(name);
      return [];
    },
  ]),
);
const cachedAgent = defineAgent({
  name: 'cached_agent',
  systemPrompt: 'Ping, then answer.',
  tools: [ping],
  llmConfig: { temperature: 0.3, cache: anthropicCache() },
  memory,
});
const plainAgent = defineAgent({ name: 'plain_agent', systemPrompt: 'Ping, then answer.', tools: [ping], llmConfig: { temperature: 0.3 } });

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('executor_continuation', llm.adapter);
});
afterAll(async () => {
  await runtime?.shutdown();
});

/** Each turn: ping, then a text answer — two steps, the whole maxSteps budget. */
const pingThenAnswer = (answer: string): MockLLMScript => (input) =>
  input.step === 1 ? { type: 'tool_calls', toolCalls: [{ name: 'ping', arguments: {} }] } : { type: 'text', text: answer };

/** Messages without ids and timestamps (those depend on the run). */
function normalized(messages: readonly Message[]): unknown[] {
  return messages.map(({ id: _id, createdAt: _createdAt, ...rest }) => rest);
}

describe('sessions across turns', () => {
  it('getHandle returns null for an unknown session', async () => {
    expect(await runtime.executor.getHandle(agent, 'no-such-session')).toBeNull();
    expect(await runtime.stateStore.loadState('no-such-session')).toBeNull();
  });

  it('handle.send() continues a completed session with a fresh per-turn step count and maxSteps budget', async () => {
    llm.use(pingThenAnswer('first answer'));
    const first = await runtime.executor.execute(agent, 'turn one', { sessionId: 'turns-1' });
    expect(await first.result()).toMatchObject({ status: 'completed', completionReason: 'text_response', output: 'first answer', stepCount: 2 });
    expect(await first.getState()).toMatchObject({ status: 'completed', stepCount: 2 });
    expect(llm.adapter.calls.map((call) => call.step)).toEqual([1, 2]);

    llm.use(pingThenAnswer('second answer'));
    const second = await first.send('turn two');
    expect(second.runId).not.toBe(first.runId);
    // With a shared budget the second turn would stop with max_steps after its first step.
    expect(await second.result()).toMatchObject({ status: 'completed', completionReason: 'text_response', output: 'second answer', stepCount: 2 });
    expect(llm.adapter.calls.map((call) => call.step)).toEqual([1, 2]);
    expect(await second.getState()).toMatchObject({ status: 'completed', stepCount: 2, output: 'second answer' });

    // The new turn saw the whole conversation.
    const seen = llm.adapter.calls[0]!.messages.map((message) => message.role);
    expect(seen).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);

    expect(starts.filter((event) => event.sessionId === 'turns-1').map((event) => [event.runId, event.stepCount])).toEqual([
      [first.runId, 0],
      [second.runId, 0],
    ]);
    const { runs } = await runtime.stateStore.listRuns('turns-1');
    expect(runs.map((run) => [run.turn, run.runId, run.status, run.stepCount])).toEqual([
      [1, first.runId, 'completed', 2],
      [2, second.runId, 'completed', 2],
    ]);
    expect(runs[1]?.previousRunId).toBe(first.runId);

    const reconnected = await runtime.executor.getHandle(agent, 'turns-1');
    expect(reconnected?.runId).toBe(second.runId);
    expect(await reconnected?.result()).toMatchObject({ status: 'completed', output: 'second answer' });
  });

  it('LLMConfig.cache reaches the adapter without changing messages or history; memory is never invoked', async () => {
    llm.use(pingThenAnswer('cached'));
    const cached = await runtime.executor.execute(cachedAgent, 'hello', { sessionId: 'cache-1' });
    expect(await cached.result()).toMatchObject({ status: 'completed', output: 'cached' });
    const cachedCalls = [...llm.adapter.calls];

    llm.use(pingThenAnswer('cached'));
    const plain = await runtime.executor.execute(plainAgent, 'hello', { sessionId: 'plain-1' });
    expect(await plain.result()).toMatchObject({ status: 'completed', output: 'cached' });
    const plainCalls = [...llm.adapter.calls];

    expect(cachedCalls).toHaveLength(2);
    for (const [index, call] of cachedCalls.entries()) {
      const twin = plainCalls[index]!;
      expect(normalized(call.messages)).toEqual(normalized(twin.messages));
      expect(call.tools).toEqual(twin.tools);
      expect(call.config.temperature).toBe(0.3);
      expect(call.config.cache).toEqual({ type: 'anthropic' });
      expect(twin.config.cache).toBeUndefined();
    }
    const { messages: cachedHistory } = await runtime.stateStore.getMessages('cache-1');
    const { messages: plainHistory } = await runtime.stateStore.getMessages('plain-1');
    expect(normalized(cachedHistory).map((message) => ({ ...(message as object), sequence: 0 }))).toEqual(
      normalized(plainHistory).map((message) => ({ ...(message as object), sequence: 0 })),
    );
    expect(memoryCalls).toEqual([]);
  });
});

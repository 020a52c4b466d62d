import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool, type ToolContext } from '../../../src/agent/index.js';
import { HookManager } from '../../../src/hooks/index.js';
import type { AgentHooks, Logger } from '../../../src/hooks/types.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM, sleep } from './executor-test-kit.js';

type ItemsState = { items: string[] };

/** Every hook and tool event of every session, in firing order: `${sessionId}|${source}|${event}|${detail}`. */
const log: string[] = [];
const failures: Array<Record<string, unknown> | undefined> = [];

function eventsOf(sessionId: string, source?: string): string[] {
  return log
    .filter((entry) => entry.startsWith(`${sessionId}|`) && (source === undefined || entry.split('|')[1] === source))
    .map((entry) => entry.split('|').slice(source === undefined ? 1 : 2).join('|'));
}

/** Hooks that log every event under `source`. */
function recorder(source: string): AgentHooks {
  const record = (sessionId: string, event: string, detail = ''): void => void log.push(`${sessionId}|${source}|${event}|${detail}`);
  return {
    onAgentStart: (event) => record(event.sessionId, 'onAgentStart', String(event.stepCount)),
    onAgentComplete: (event) => record(event.sessionId, 'onAgentComplete', event.completionReason),
    onAgentFail: (event) => record(event.sessionId, 'onAgentFail'),
    beforeLLMCall: (event) => record(event.sessionId, 'beforeLLMCall', String(event.step)),
    afterLLMCall: (event) => record(event.sessionId, 'afterLLMCall', String(event.step)),
    beforeTool: (event) => record(event.sessionId, 'beforeTool', event.toolCallId),
    onStateChange: (event) => record(event.sessionId, 'onStateChange', event.toolCallId ?? '?'),
    onMessage: (event) =>
      record(event.sessionId, 'onMessage', event.message.role === 'tool' ? `tool:${event.message.toolCallId}` : event.message.role),
    afterTool: (event) => record(event.sessionId, 'afterTool', `${event.toolCallId}:${event.error === undefined ? 'ok' : 'error'}`),
  };
}

function appendTool(name: string, delayMs: number) {
  return defineTool({
    name,
    description: `Append an item after ${delayMs} ms`,
    parameters: z.object({ item: z.string() }),
    execute: async ({ item }, context: ToolContext<ItemsState>) => {
      log.push(`${context.sessionId}|tool|execute-start|${context.toolCallId}`);
      await sleep(delayMs);
      context.updateState((draft) => {
        draft.items.push(item);
      });
      log.push(`${context.sessionId}|tool|execute-end|${context.toolCallId}`);
      return { appended: item };
    },
  });
}

const tools = [appendTool('slow_append', 250), appendTool('fast_append', 5)];
const stateSchema = z.object({ items: z.array(z.string()).default([]) });

const orderAgent = defineAgent({ name: 'hook_order_agent', systemPrompt: 'Append items.', tools, stateSchema, hooks: recorder('agent') });

const throwingHooks: AgentHooks = Object.fromEntries(
  (['onAgentStart', 'onAgentComplete', 'beforeLLMCall', 'afterLLMCall', 'beforeTool', 'onStateChange', 'onMessage', 'afterTool'] as const).map(
    (name, index) => [
      name,
      index % 2 === 0
        ? () => {
            throw new Error('hook exploded');
          }
        : async () => Promise.reject(new Error('async hook exploded')),
    ],
  ),
);
const throwingAgent = defineAgent({ name: 'hook_throwing_agent', systemPrompt: 'Append items.', tools, stateSchema, hooks: throwingHooks });

const recordingLogger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: (message, fields) => {
    if (message === 'hook.failed') failures.push(fields);
  },
};

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('executor_hook_order', llm.adapter, {
    hookManager: new HookManager({ logger: recordingLogger, hooks: [recorder('constructor')] }),
  });
});
afterAll(async () => {
  await runtime?.shutdown();
});

/** Step 1: slow_append (call a) and fast_append (call b) in parallel; step 2: a text answer. */
function twoParallelToolsThenText(prefix: string) {
  return (_input: unknown, callIndex: number) =>
    callIndex === 0
      ? {
          type: 'tool_calls' as const,
          toolCalls: [
            { id: `${prefix}-a`, name: 'slow_append', arguments: { item: 'slow' } },
            { id: `${prefix}-b`, name: 'fast_append', arguments: { item: 'fast' } },
          ],
        }
      : callIndex === 1
        ? { type: 'text' as const, text: 'done' }
        : undefined;
}

describe('lifecycle hook firing order (standard mode)', () => {
  it('fires beforeTool → execute → onStateChange → onMessage → afterTool per tool, deferred results in call order', async () => {
    llm.use(twoParallelToolsThenText('h1'));
    const optionsManager = new HookManager({ hooks: [recorder('optionsManager')] });
    const handle = await runtime.executor.execute(orderAgent, 'append two items', {
      sessionId: 'hooks-1',
      hooks: recorder('options'),
      hookManager: optionsManager,
    });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', completionReason: 'text_response', output: 'done' });

    const events = eventsOf('hooks-1', 'options');
    const at = (event: string): number => {
      const index = events.indexOf(event);
      expect(index, `${event} fired`).toBeGreaterThanOrEqual(0);
      return index;
    };
    const everything = eventsOf('hooks-1');
    const atTool = (event: string): number => everything.indexOf(`tool|${event}`);
    const atHook = (event: string): number => everything.indexOf(`options|${event}`);

    // Precondition: the tools really overlapped and b (second call) finished first.
    expect(atTool('execute-start|h1-b')).toBeLessThan(atTool('execute-end|h1-a'));
    expect(atTool('execute-end|h1-b')).toBeLessThan(atTool('execute-end|h1-a'));

    for (const id of ['h1-a', 'h1-b']) {
      expect(atHook(`beforeTool|${id}`)).toBeLessThan(atTool(`execute-start|${id}`));
      expect(atTool(`execute-end|${id}`)).toBeLessThan(atHook(`onStateChange|${id}`));
      expect(at(`onStateChange|${id}`)).toBeLessThan(at(`onMessage|tool:${id}`));
      expect(at(`onMessage|tool:${id}`)).toBeLessThan(at(`afterTool|${id}:ok`));
      // Deferred until every phase-1 tool finished.
      expect(atHook(`onMessage|tool:${id}`)).toBeGreaterThan(atTool('execute-end|h1-a'));
      expect(atHook(`onMessage|tool:${id}`)).toBeGreaterThan(atTool('execute-end|h1-b'));
    }

    // After both tools: the assistant message, then onMessage/afterTool per tool in call order (a before b).
    const afterTools = events.slice(at('onMessage|assistant'));
    expect(afterTools).toEqual([
      'onMessage|assistant',
      'onMessage|tool:h1-a',
      'afterTool|h1-a:ok',
      'onMessage|tool:h1-b',
      'afterTool|h1-b:ok',
      'beforeLLMCall|2',
      'afterLLMCall|2',
      'onMessage|assistant',
      'onAgentComplete|text_response',
    ]);
    expect(events.slice(0, 3)).toEqual(['onAgentStart|0', 'beforeLLMCall|1', 'afterLLMCall|1']);
    expect(events.filter((event) => event.startsWith('onMessage|')).length).toBe(4);
  });

  it('merges hooks in constructor → agent.hooks → options.hooks → options.hookManager order', async () => {
    llm.use(twoParallelToolsThenText('h2'));
    const handle = await runtime.executor.execute(orderAgent, 'append two items', {
      sessionId: 'hooks-2',
      hooks: recorder('options'),
      hookManager: new HookManager({ hooks: [recorder('optionsManager')] }),
    });
    await handle.result();

    const everything = eventsOf('hooks-2').filter((entry) => !entry.startsWith('tool|'));
    const sourceOrder = ['constructor', 'agent', 'options', 'optionsManager'];
    for (const event of ['onAgentStart|0', 'beforeTool|h2-a', 'onStateChange|h2-b', 'onMessage|tool:h2-a', 'afterTool|h2-b:ok', 'onAgentComplete|text_response']) {
      const firings = everything.map((entry, index) => ({ entry, index })).filter(({ entry }) => entry.endsWith(`|${event}`));
      expect(firings.map(({ entry }) => entry.split('|')[0]), event).toEqual(sourceOrder);
      // The four sources fire back to back for one event.
      expect(firings.at(-1)!.index - firings[0]!.index, event).toBe(3);
    }
    expect(everything[0]).toBe('constructor|onAgentStart|0');
    expect(everything.at(-1)).toBe('optionsManager|onAgentComplete|text_response');
  });

  it('a throwing or rejecting hook is logged and never fails the run; later hooks still fire', async () => {
    llm.use(twoParallelToolsThenText('h3'));
    const failuresBefore = failures.length;
    const handle = await runtime.executor.execute(throwingAgent, 'append two items', { sessionId: 'hooks-3', hooks: recorder('options') });
    const result = await handle.result();

    expect(result).toMatchObject({ status: 'completed', completionReason: 'text_response', output: 'done' });
    const state = await handle.getState();
    expect([...(state?.customState as ItemsState).items].sort()).toEqual(['fast', 'slow']);
    const events = eventsOf('hooks-3', 'options');
    expect(events[0]).toBe('onAgentStart|0');
    expect(events.at(-1)).toBe('onAgentComplete|text_response');
    expect(events).toEqual(expect.arrayContaining(['afterTool|h3-a:ok', 'afterTool|h3-b:ok', 'onStateChange|h3-a', 'onStateChange|h3-b']));

    const logged = failures.slice(failuresBefore).filter((fields) => fields?.sessionId === 'hooks-3');
    const failedHooks = new Set(logged.map((fields) => fields?.hook));
    expect(failedHooks).toEqual(
      new Set(['onAgentStart', 'onAgentComplete', 'beforeLLMCall', 'afterLLMCall', 'beforeTool', 'onStateChange', 'onMessage', 'afterTool']),
    );
    expect(JSON.stringify(logged)).not.toContain('exploded');
  });
});

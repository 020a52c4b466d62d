import { afterEach, describe, expect, it, vi } from 'vitest';

import {
  consoleLogger,
  HookManager,
  HookManagerRegistry,
  mergeHookManagers,
  noopLogger,
  type AgentHooks,
  type Logger,
} from '../../../src/hooks/index.js';

const base = { sessionId: 's1', runId: 'r1', agentType: 'assistant' };

function recordingLogger(): Logger & { entries: Array<[string, string, Record<string, unknown> | undefined]> } {
  const entries: Array<[string, string, Record<string, unknown> | undefined]> = [];
  return {
    entries,
    debug: (message, fields) => entries.push(['debug', message, fields]),
    info: (message, fields) => entries.push(['info', message, fields]),
    warn: (message, fields) => entries.push(['warn', message, fields]),
    error: (message, fields) => entries.push(['error', message, fields]),
  };
}

describe('HookManager', () => {
  it('calls handlers in registration order and awaits each one', async () => {
    const calls: string[] = [];
    const manager = new HookManager({
      hooks: [
        {
          onAgentStart: async () => {
            await new Promise((resolve) => setTimeout(resolve, 20));
            calls.push('first');
          },
        },
        { onAgentStart: () => { calls.push('second'); } },
        { afterTool: () => { calls.push('not this'); } },
      ],
    });
    manager.register({ onAgentStart: () => { calls.push('third'); } });
    await manager.fire('onAgentStart', { ...base, stepCount: 0 });
    expect(calls).toEqual(['first', 'second', 'third']);
  });

  it('passes the event and keeps `this` bound to the hook set', async () => {
    const hooks = {
      seen: [] as unknown[],
      beforeTool(event: Parameters<NonNullable<AgentHooks['beforeTool']>>[0]) {
        this.seen.push(event);
      },
    };
    const manager = new HookManager();
    manager.register(hooks);
    const event = { ...base, toolCallId: 'c1', toolName: 'search', input: { q: 1 } };
    await manager.fire('beforeTool', event);
    expect(hooks.seen).toEqual([event]);
  });

  it.each<[string, AgentHooks['onMessage']]>([
    ['a sync throw', () => { throw new TypeError('boom with payload'); }],
    ['a rejection', async () => { throw new RangeError('rejected with payload'); }],
  ])('logs and swallows %s, then keeps firing later hooks', async (_label, failing) => {
    const logger = recordingLogger();
    const later = vi.fn();
    const manager = new HookManager({ logger, hooks: [{ onMessage: failing }, { onMessage: later }] });
    await expect(manager.fire('onMessage', { ...base, message: { role: 'user', content: 'x' } })).resolves.toBeUndefined();
    expect(later).toHaveBeenCalledTimes(1);
    const errorEntry = logger.entries.find(([level]) => level === 'error');
    expect(errorEntry?.[1]).toBe('hook.failed');
    expect(errorEntry?.[2]).toMatchObject({ hook: 'onMessage', hookIndex: 0, sessionId: 's1', runId: 'r1', agentType: 'assistant' });
    expect(JSON.stringify(errorEntry?.[2])).not.toContain('payload');
  });

  it('unregisters a hook set', async () => {
    const handler = vi.fn();
    const manager = new HookManager();
    const unregister = manager.register({ onAgentFail: handler });
    expect(manager.hasHooks('onAgentFail')).toBe(true);
    unregister();
    expect(manager.hasHooks()).toBe(false);
    await manager.fire('onAgentFail', { ...base, error: 'x', completionReason: 'failed', stepCount: 1 });
    expect(handler).not.toHaveBeenCalled();
  });

  it('defaults to the noop logger', () => {
    expect(new HookManager().logger).toBe(noopLogger);
  });
});

describe('mergeHookManagers', () => {
  it('fires constructor, agent.hooks, options.hooks, options.hookManager in that order', async () => {
    const order: string[] = [];
    const hook = (name: string): AgentHooks => ({ afterLLMCall: () => { order.push(name); } });
    const logger = recordingLogger();
    const constructorManager = new HookManager({ logger, hooks: [hook('constructor-1'), hook('constructor-2')] });
    const optionsManager = new HookManager({ hooks: [hook('options-manager')] });
    const merged = mergeHookManagers(constructorManager, hook('agent'), hook('options'), optionsManager);
    await merged.fire('afterLLMCall', {
      ...base,
      step: 1,
      result: { text: '', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, finishReason: 'stop' },
    });
    expect(order).toEqual(['constructor-1', 'constructor-2', 'agent', 'options', 'options-manager']);
    expect(merged.logger).toBe(logger);
    expect(constructorManager.getHooks()).toHaveLength(2);
  });

  it('accepts missing sources', async () => {
    const merged = mergeHookManagers(undefined, undefined, { onAgentStart: vi.fn() });
    expect(merged.getHooks()).toHaveLength(1);
    expect(mergeHookManagers().hasHooks()).toBe(false);
  });
});

describe('HookManagerRegistry', () => {
  it('resolves a registered manager and falls back otherwise', () => {
    const registry = new HookManagerRegistry();
    const fallback = new HookManager();
    const manager = new HookManager();
    registry.register('wf-1', manager);
    expect(registry.resolve('wf-1', fallback)).toBe(manager);
    expect(registry.resolve('wf-2', fallback)).toBe(fallback);
    registry.unregister('wf-1');
    expect(registry.get('wf-1')).toBeUndefined();
    expect(registry.size).toBe(0);
  });
});

describe('loggers', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('consoleLogger writes prefixed lines at the matching level', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    consoleLogger.warn('store.retry', { attempt: 2 });
    consoleLogger.info('started');
    expect(warn).toHaveBeenCalledWith('[helix-agents] store.retry', { attempt: 2 });
    expect(info).toHaveBeenCalledWith('[helix-agents] started');
  });

  it('noopLogger writes nothing', () => {
    const spies = (['debug', 'info', 'warn', 'error'] as const).map((level) => vi.spyOn(console, level).mockImplementation(() => undefined));
    noopLogger.debug?.('x');
    noopLogger.info('x');
    noopLogger.warn('x');
    noopLogger.error('x');
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });
});

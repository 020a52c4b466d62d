import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';

const agent = defineAgent({ name: 'execute_reads_agent', systemPrompt: 'x', maxSteps: 2 });
const llm = new MockLLMAdapter(() => ({ type: 'text', text: 'answered' }));

let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('execute_reads', llm);
});
afterAll(async () => {
  await runtime?.shutdown();
});

/**
 * What `execute()` reads of `sessionId` before its start transaction, in order: `<read> called` when issued,
 * `<read> answered` when its answer is in (the session, its current run, the stream under its id).
 */
async function readsOfExecute(sessionId: string, message: string): Promise<string[]> {
  const events: string[] = [];
  const restore: Array<() => void> = [];
  const watch = (target: object, name: string, label: string): void => {
    const methods = target as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const original = methods[name]!;
    methods[name] = function (this: unknown, ...args: unknown[]) {
      if (args[0] !== sessionId) return original.apply(this, args);
      events.push(`${label} called`);
      return original.apply(this, args).then((value) => {
        events.push(`${label} answered`);
        return value;
      });
    };
    restore.push(() => Reflect.deleteProperty(methods, name));
  };
  watch(runtime.stateStore, 'loadState', 'session');
  watch(runtime.stateStore, 'getCurrentRun', 'run');
  watch(runtime.streamManager, 'getInfo', 'stream');
  try {
    const handle = await runtime.executor.execute(agent, message, { sessionId });
    events.push('started');
    expect(await handle.result()).toMatchObject({ status: 'completed', output: 'answered' });
    return events.slice(0, events.indexOf('started'));
  } finally {
    for (const undo of restore) undo();
  }
}

describe('execute() overlaps the reads its start is planned from', () => {
  it('a new session: the stream under its id is read beside the session; a later turn: its run and stream side by side, after the session (and no stream read beside it)', async () => {
    const first = await readsOfExecute('reads-overlap', 'first');
    expect(first.slice(0, 2)).toEqual(['session called', 'stream called']);
    expect(first).not.toContain('run called');
    const second = await readsOfExecute('reads-overlap', 'second');
    // This process found the session stored: no stream read beside it (only a new session's start would use one).
    expect(second.slice(0, 2)).toEqual(['session called', 'session answered']);
    const answered = second.indexOf('session answered');
    // Neither read planning the turn may predate the session read: the start's status swap expects the version it read.
    const after = second.slice(answered + 1);
    expect(after.slice(0, 2).sort()).toEqual(['run called', 'stream called']);
    expect((await runtime.stateStore.getCurrentRun('reads-overlap'))?.turn).toBe(2);
  });
});

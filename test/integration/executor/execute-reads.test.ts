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
  watch(runtime.stateStore.stepRecords, 'loadStateForStart', 'session and run');
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
  it('one read round trip before the start, turn 1 and turn 2: the session with its latest run in one read, the stream beside it', async () => {
    const first = await readsOfExecute('reads-overlap', 'first');
    expect(first.slice(0, 2)).toEqual(['session and run called', 'stream called']);
    expect(first).not.toContain('run called');
    expect(first).not.toContain('session called');
    const second = await readsOfExecute('reads-overlap', 'second');
    expect(second.slice(0, 2)).toEqual(['session and run called', 'stream called']);
    // The stream read beside postdates the latest run's end (`streamReadIsCurrent`): not read again, no run read apart.
    expect(second.filter((event) => event.endsWith('called'))).toEqual(['session and run called', 'stream called']);
    expect((await runtime.stateStore.getCurrentRun('reads-overlap'))?.turn).toBe(2);
  });

  it('a stream read beside the session that predates its latest run’s end is read again after it', async () => {
    await readsOfExecute('reads-stale', 'first');
    const manager = runtime.streamManager as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const original = manager.getInfo!;
    let calls = 0;
    // The first read answers as a read before the first turn's end would: active, at that turn's start.
    manager.getInfo = async function (this: unknown, ...args: unknown[]) {
      const info = (await original.apply(this, args)) as { status: string; lastSequence: number } | null;
      calls += 1;
      return calls === 1 && info !== null ? { ...info, status: 'active', lastSequence: 0 } : info;
    };
    try {
      const events = await readsOfExecute('reads-stale', 'second');
      expect(events.filter((event) => event === 'stream called')).toHaveLength(2);
      const { runs } = await runtime.stateStore.listRuns('reads-stale');
      expect(runs.map((run) => run.turn)).toEqual([1, 2]);
      // Planned from the read after the session: the second turn starts after the first turn's chunks.
      expect(runs[1]!.startSequence).toBeGreaterThan(0);
    } finally {
      Reflect.deleteProperty(manager, 'getInfo');
    }
  });
});

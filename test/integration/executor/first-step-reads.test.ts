import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import { HookManager } from '../../../src/hooks/index.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { setRunBoundaryProbeForTesting } from '../../../src/steps/run-boundary-probe.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';

const agent = defineAgent({ name: 'first_reads_agent', systemPrompt: 'x', maxSteps: 2 });
let onModelCall: () => void = () => undefined;
const llm = new MockLLMAdapter(() => {
  onModelCall();
  return { type: 'text', text: 'answered' };
});

let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('first_reads', llm);
});
afterEach(() => {
  setRunBoundaryProbeForTesting(undefined);
  onModelCall = () => undefined;
});
afterAll(async () => {
  await runtime?.shutdown();
});

const READS = ['readInterruptFlag', 'loadState', 'getMessages'] as const;

/**
 * The session reads of `sessionId` (its flag, state and history, through the store or its step records) issued after
 * the run's begin did its work and before the model was called.
 */
async function readsBetweenBeginAndModel(sessionId: string, start: () => Promise<unknown>): Promise<string[]> {
  const targets = [runtime.stateStore, runtime.stateStore.stepRecords].filter((target) => target !== undefined) as unknown as Array<
    Record<string, (...args: unknown[]) => unknown>
  >;
  const reads: string[] = [];
  let counting = false;
  const restore: Array<() => void> = [];
  for (const target of targets) {
    for (const name of [...READS, 'loadStateForStep']) {
      const original = target[name];
      if (typeof original !== 'function') continue;
      target[name] = function (this: unknown, ...args: unknown[]) {
        if (counting && args[0] === sessionId) reads.push(name);
        return original.apply(this, args);
      };
      restore.push(() => (target[name] = original));
    }
  }
  setRunBoundaryProbeForTesting(async (point, probed) => {
    if (point === 'begin_deferred' && probed === sessionId) counting = true;
  });
  onModelCall = () => (counting = false);
  try {
    await start();
    return reads;
  } finally {
    for (const undo of restore) undo();
  }
}

describe("a stored turn's first LLM step", () => {
  it('reads nothing of the session after its begin (the begin started its reads); turn 1 and turn 2', async () => {
    for (const message of ['first', 'second']) {
      const reads = await readsBetweenBeginAndModel('reads-1', async () => {
        const handle = await runtime.executor.execute(agent, message, { sessionId: 'reads-1' });
        expect(await handle.result()).toMatchObject({ status: 'completed', output: 'answered' });
      });
      expect(reads).toEqual([]);
    }
    const messages = (await runtime.stateStore.getMessages('reads-1')).messages;
    expect(messages.map((stored) => [stored.role, stored.content])).toEqual([
      ['user', 'first'],
      ['assistant', 'answered'],
      ['user', 'second'],
      ['assistant', 'answered'],
    ]);
  });

  it('reads after the begin when an onAgentStart hook ran there (it may have written the session)', async () => {
    const hookManager = new HookManager({ hooks: [{ onAgentStart: () => undefined }] });
    const reads = await readsBetweenBeginAndModel('reads-2', async () => {
      const handle = await runtime.executor.execute(agent, 'hooked', { sessionId: 'reads-2', hookManager });
      expect((await handle.result()).status).toBe('completed');
    });
    expect(reads).toEqual(expect.arrayContaining(['readInterruptFlag', 'getMessages']));
  });

  it("are started with the stream's writer by execute() before DBOS recorded the workflow's start, unless a begin hook may change them", async () => {
    const ahead = async (sessionId: string, options: { hookManager?: HookManager } = {}): Promise<string[]> => {
      const events: string[] = [];
      const store = runtime.stateStore as unknown as Record<string, (...args: unknown[]) => unknown>;
      const streams = runtime.streamManager as unknown as Record<string, (...args: unknown[]) => unknown>;
      const originals = new Map<string, (...args: unknown[]) => unknown>();
      const watched: Array<[Record<string, (...args: unknown[]) => unknown>, string]> = [
        [store, 'readInterruptFlag'],
        [store, 'getMessages'],
        [runtime.stateStore.stepRecords as unknown as Record<string, (...args: unknown[]) => unknown>, 'loadStateForStep'],
        [streams, 'createWriter'],
      ];
      for (const [target, name] of watched) {
        const original = target[name]!;
        originals.set(name, original);
        target[name] = function (this: unknown, ...args: unknown[]) {
          if (args[0] === sessionId) events.push(name);
          return original.apply(this, args);
        };
      }
      // When DBOS recorded the workflow's start (its start resolves): the run's begin comes after it.
      const start = vi.spyOn(DBOS, 'startWorkflow').mockImplementation(((...args: Parameters<typeof DBOS.startWorkflow>) => {
        start.mockRestore();
        const starter = DBOS.startWorkflow(...args);
        return (...inputs: unknown[]) => {
          const started = (starter as (...values: unknown[]) => Promise<unknown>)(...inputs);
          void started.then(() => events.push('startWorkflow'));
          return started;
        };
      }) as typeof DBOS.startWorkflow);
      try {
        const handle = await runtime.executor.execute(agent, 'early', { sessionId, ...options });
        expect((await handle.result()).status).toBe('completed');
      } finally {
        start.mockRestore();
        for (const [target, name] of watched) target[name] = originals.get(name)!;
      }
      return events.slice(0, events.indexOf('startWorkflow'));
    };
    expect((await ahead('reads-3')).sort()).toEqual(['createWriter', 'getMessages', 'loadStateForStep', 'readInterruptFlag']);
    // The second turn of the session too.
    expect((await ahead('reads-3')).sort()).toEqual(['createWriter', 'getMessages', 'loadStateForStep', 'readInterruptFlag']);
    const hookManager = new HookManager({ hooks: [{ onAgentStart: () => undefined }] });
    expect(await ahead('reads-4', { hookManager })).toEqual([]);
  });
});

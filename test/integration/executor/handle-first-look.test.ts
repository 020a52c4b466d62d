import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';

const agent = defineAgent({ name: 'first_look_agent', systemPrompt: 'x', maxSteps: 2 });
let entered: () => void = () => undefined;
let release: () => void = () => undefined;
const llm = new MockLLMAdapter(async () => {
  entered();
  await new Promise<void>((resolve) => (release = resolve));
  return { type: 'text', text: 'answered' };
});

let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('first_look', llm);
});
afterAll(async () => {
  release();
  await runtime?.shutdown();
});

/** Count the store's run and session reads of `sessionId` from now on (the executor's own store instance). */
function countReads(sessionId: string): { reads: string[]; stop(): void } {
  const store = runtime.stateStore as unknown as Record<'getRun' | 'loadState' | 'getCurrentRun', (...args: unknown[]) => unknown>;
  const reads: string[] = [];
  const originals = (['getRun', 'loadState', 'getCurrentRun'] as const).map((name) => {
    const original = store[name];
    store[name] = function (this: unknown, ...args: unknown[]) {
      if (args[0] === sessionId) reads.push(name);
      return original.apply(this, args);
    };
    return [name, original] as const;
  });
  return {
    reads,
    stop: () => {
      for (const [name, original] of originals) store[name] = original;
    },
  };
}

describe('the first result() of a run this process started', () => {
  it('reads neither the run nor the session while no signal of the run came; the result still arrives', async () => {
    const modelEntered = new Promise<void>((resolve) => (entered = resolve));
    const handle = await runtime.executor.execute(agent, 'hello', { sessionId: 'first-look-1' });
    await modelEntered;
    const counted = countReads('first-look-1');
    try {
      const result = handle.result();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(counted.reads).toEqual([]);
      release();
      expect(await result).toMatchObject({ status: 'completed', output: 'answered' });
    } finally {
      counted.stop();
    }
  });

  it('reads the store when its run signalled before result() was called (here: a finish written apart, for a hook)', async () => {
    const modelEntered = new Promise<void>((resolve) => (entered = resolve));
    // onAgentComplete must see the outcome committed when it fires: the finish writes on its own, then signals a change.
    const handle = await runtime.executor.execute(agent, 'hello', { sessionId: 'first-look-2', hooks: { onAgentComplete: () => undefined } });
    await modelEntered;
    release();
    await untilEnded('first-look-2', handle.runId);
    const counted = countReads('first-look-2');
    try {
      expect(await handle.result()).toMatchObject({ status: 'completed', output: 'answered' });
      expect(counted.reads).toContain('getRun');
    } finally {
      counted.stop();
    }
  });

  it("reads nothing when its run's finish committed with its record before result() was called: the signal said it ended", async () => {
    const modelEntered = new Promise<void>((resolve) => (entered = resolve));
    const handle = await runtime.executor.execute(agent, 'hello', { sessionId: 'first-look-4' });
    await modelEntered;
    release();
    await untilEnded('first-look-4', handle.runId);
    const counted = countReads('first-look-4');
    try {
      expect(await handle.result()).toMatchObject({ status: 'completed', output: 'answered' });
      expect(counted.reads).toEqual([]);
    } finally {
      counted.stop();
    }
  });

  it.each([
    { finish: 'written apart (a hook): its signal starts a store read', hooks: { onAgentComplete: () => undefined }, reads: 1 },
    { finish: 'committed with its record: its signal says the run ended, nothing is read', hooks: undefined, reads: 0 },
  ])('is not held by a store read after its run signalled, finish $finish; the result, recorded meanwhile, wins', async ({ hooks, reads }) => {
    const modelEntered = new Promise<void>((resolve) => (entered = resolve));
    const sessionId = `first-look-3-${reads}`;
    const handle = await runtime.executor.execute(agent, 'hello', { sessionId, ...(hooks === undefined ? {} : { hooks }) });
    const store = runtime.stateStore as unknown as { getRun: (...args: unknown[]) => Promise<unknown> };
    const original = store.getRun;
    let slowReads = 0;
    try {
      const result = handle.result();
      await modelEntered;
      // From now on the handle's reads of this run take 3 s (the workflow reads the run with getCurrentRun).
      store.getRun = async function (this: unknown, ...args: unknown[]) {
        if (args[0] === sessionId) {
          slowReads += 1;
          await new Promise((resolve) => setTimeout(resolve, 3_000));
        }
        return original.apply(this, args);
      };
      const startedAt = Date.now();
      release();
      expect(await result).toMatchObject({ status: 'completed', output: 'answered' });
      expect(slowReads).toBe(reads);
      expect(Date.now() - startedAt).toBeLessThan(2_500);
    } finally {
      store.getRun = original;
    }
  });
});

/** Wait until the run's record no longer reads `running`. */
async function untilEnded(sessionId: string, runId: string): Promise<void> {
  for (let tries = 0; tries < 200 && (await runtime.stateStore.getRun(sessionId, runId))?.status === 'running'; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool, type ToolContext } from '../../../src/agent/index.js';
import { NotResumableError } from '../../../src/errors/index.js';
import type { AgentResumedEvent } from '../../../src/hooks/types.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, scriptedLLM } from '../executor/executor-test-kit.js';
import { conversation } from './run-control-kit.js';

type Notes = { notes: string[] };

let noteRuns = 0;
const addNote = defineTool({
  name: 'add_note',
  description: 'Append a note',
  parameters: z.object({ note: z.string() }),
  execute: async ({ note }, context: ToolContext<Notes>) => {
    noteRuns += 1;
    context.updateState((draft) => void draft.notes.push(note));
    return { saved: note };
  },
});

const resumed: AgentResumedEvent[] = [];
const agent = defineAgent({
  name: 'retry_agent',
  systemPrompt: (state: Notes) => `Notes: ${state.notes.join(',')}`,
  stateSchema: z.object({ notes: z.array(z.string()).default([]) }),
  tools: [addNote],
  maxSteps: 5,
  hooks: { onAgentResumed: (event) => void resumed.push(event) },
});

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('run_control_retry', llm.adapter);
});
afterAll(async () => {
  await runtime?.shutdown();
});

const isNotResumable = (error: unknown): boolean => NotResumableError.isInstance(error) && error.code === 'NOT_RESUMABLE';

describe('retry()', () => {
  it('re-runs a failed session from its history, keeping the state its tools wrote', async () => {
    // Call 0 writes note a; call 1 fails for good (not retryable); call 2 — the retry's first call — answers.
    llm.use((_input, callIndex) => {
      if (callIndex === 0) return { type: 'tool_calls', toolCalls: [{ id: 'note-a', name: 'add_note', arguments: { note: 'a' } }] };
      if (callIndex === 1) return { type: 'error', message: 'model exploded', retryable: false };
      return { type: 'text', text: 'recovered' };
    });
    const first = await runtime.executor.execute(agent, 'take a note', { sessionId: 'retry-1' });
    const firstChunks = collectChunks(first);
    const failed = await first.result();
    expect(failed).toMatchObject({ status: 'failed', completionReason: 'failed', runId: first.runId });
    expect((await firstChunks).at(-1)).toMatchObject({ type: 'error', recoverable: false });
    expect(await first.getState()).toMatchObject({ status: 'failed', customState: { notes: ['a'] } });
    expect(llm.adapter.callCount).toBe(2);
    expect(await first.canResume()).toBe(false);

    await expect(runtime.executor.resume(agent, 'retry-1')).rejects.toSatisfy(isNotResumable);
    await expect(first.resume({ mode: 'with_message', message: 'again' })).rejects.toSatisfy(isNotResumable);
    expect((await runtime.stateStore.listRuns('retry-1')).runs).toHaveLength(1);

    const retried = await first.retry();
    expect(retried.runId).not.toBe(first.runId);
    const retriedChunks = collectChunks(retried);
    expect(await retried.result()).toMatchObject({ status: 'completed', output: 'recovered', runId: retried.runId });
    expect((await retriedChunks).at(-1)).toMatchObject({ type: 'output', output: 'recovered' });

    // The retry's only LLM call restarted at step 1 and saw the failed run's history and state.
    expect(llm.adapter.callCount).toBe(3);
    expect(llm.adapter.calls[2]?.step).toBe(1);
    expect(conversation(llm.adapter.calls[2]!.messages)).toEqual(['system:Notes: a', 'user:take a note', 'assistant:[note-a]', 'tool:note-a']);
    expect(noteRuns).toBe(1);

    const state = await runtime.stateStore.loadState<Notes>('retry-1');
    expect(state).toMatchObject({ status: 'completed', output: 'recovered', customState: { notes: ['a'] } });
    expect(state?.error).toBeUndefined();
    expect(state?.failureReason).toBeUndefined();
    const { runs } = await runtime.stateStore.listRuns('retry-1');
    expect(runs.map((run) => [run.turn, run.runId, run.status])).toEqual([
      [1, first.runId, 'failed'],
      [2, retried.runId, 'completed'],
    ]);
    expect(runs[1]?.previousRunId).toBe(first.runId);
    expect(resumed.filter((event) => event.sessionId === 'retry-1')).toEqual([expect.objectContaining({ runId: retried.runId, previousRunId: first.runId })]);
    const { messages } = await runtime.stateStore.getMessages('retry-1');
    expect(conversation(messages)).toEqual(['user:take a note', 'assistant:[note-a]', 'tool:note-a', 'assistant:recovered']);
  });

  it('retry() of a completed session throws NotResumableError and starts nothing', async () => {
    llm.use(() => ({ type: 'text', text: 'fine' }));
    const handle = await runtime.executor.execute(agent, 'hello', { sessionId: 'retry-done' });
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    await expect(runtime.executor.retry(agent, 'retry-done')).rejects.toSatisfy(isNotResumable);
    await expect(handle.retry()).rejects.toSatisfy(isNotResumable);
    await expect(handle.resume()).rejects.toSatisfy(isNotResumable);
    expect(llm.adapter.callCount).toBe(1);
    expect((await runtime.stateStore.listRuns('retry-done')).runs).toHaveLength(1);
    expect((await runtime.stateStore.loadState('retry-done'))?.status).toBe('completed');
  });

  it('retry() whose session got a late write between its read and its swap (a cancel recorded twice) still runs', async () => {
    llm.use((_input, callIndex) => (callIndex === 0 ? { type: 'error', message: 'model exploded', retryable: false } : { type: 'text', text: 'again' }));
    const first = await runtime.executor.execute(agent, 'go', { sessionId: 'retry-late-write' });
    expect((await first.result()).status).toBe('failed');
    // The swap's first attempt finds the version moved by another writer of the failed session.
    const store = runtime.stateStore;
    const swap = store.compareAndSetStatus.bind(store);
    let late = true;
    store.compareAndSetStatus = (async (sessionId: string, ...rest: Parameters<typeof swap> extends [string, ...infer R] ? R : never) => {
      if (late && sessionId === 'retry-late-write') {
        late = false;
        await store.updateStatus(sessionId, 'failed', { failureReason: 'aborted' });
      }
      return swap(sessionId, ...rest);
    });
    try {
      const retried = await runtime.executor.retry(agent, 'retry-late-write');
      expect(await retried.result()).toMatchObject({ status: 'completed', output: 'again' });
      expect(late).toBe(false);
    } finally {
      store.compareAndSetStatus = swap;
    }
  });
});

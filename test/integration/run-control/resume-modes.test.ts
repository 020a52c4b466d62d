import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool, type ToolContext } from '../../../src/agent/index.js';
import type { AgentExecutionHandle } from '../../../src/executor/types.js';
import type { AgentResumedEvent } from '../../../src/hooks/types.js';
import type { MockLLMScript } from '../../../src/llm/mock/mock-llm-response.js';
import type { AgentResult } from '../../../src/types/result.js';
import type { StreamChunk } from '../../../src/types/stream.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, scriptedLLM } from '../executor/executor-test-kit.js';
import { conversation, createGate, type Gate } from './run-control-kit.js';

type Notes = { notes: string[] };

/** The gate of the current test: the slow tool (or the slow LLM call) waits on it. */
let gate: Gate = createGate();

const addNote = defineTool({
  name: 'add_note',
  description: 'Append a note',
  parameters: z.object({ note: z.string() }),
  execute: async ({ note }, context: ToolContext<Notes>) => {
    context.updateState((draft) => void draft.notes.push(note));
    return { saved: note };
  },
});

const slowNote = defineTool({
  name: 'slow_note',
  description: 'Append a note, slowly',
  parameters: z.object({ note: z.string() }),
  execute: async ({ note }, context: ToolContext<Notes>) => {
    await gate.pass();
    context.updateState((draft) => void draft.notes.push(note));
    return { saved: note };
  },
});

const resumed: AgentResumedEvent[] = [];
const agent = defineAgent({
  name: 'resume_agent',
  // The prompt shows the custom state, so every recorded LLM call reveals the state it was built from.
  systemPrompt: (state: Notes) => `Notes: ${state.notes.join(',')}`,
  stateSchema: z.object({ notes: z.array(z.string()).default([]) }),
  tools: [addNote, slowNote],
  maxSteps: 8,
  hooks: { onAgentResumed: (event) => void resumed.push(event) },
});

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('run_control_resume', llm.adapter, { toolRetryPolicy: { maxAttempts: 1 } });
});
afterAll(async () => {
  await runtime?.shutdown();
});

/**
 * 'tool': step 1 adds note a, step 2 adds note b with the slow tool (the interrupt lands while it runs).
 * 'llm': step 1's LLM call is slow (the interrupt lands during it), then adds note a.
 * Every later call answers with text.
 */
function notesScript(slow: 'tool' | 'llm'): MockLLMScript {
  return async (_input, callIndex) => {
    if (callIndex === 0) {
      if (slow === 'llm') await gate.pass();
      return { type: 'tool_calls', toolCalls: [{ id: 'note-a', name: 'add_note', arguments: { note: 'a' } }] };
    }
    if (callIndex === 1 && slow === 'tool') return { type: 'tool_calls', toolCalls: [{ id: 'note-b', name: 'slow_note', arguments: { note: 'b' } }] };
    return { type: 'text', text: 'resumed answer' };
  };
}

interface Interrupted {
  handle: AgentExecutionHandle<unknown>;
  result: AgentResult<unknown>;
  chunks: StreamChunk[];
}

/** Start a run, interrupt it while the slow tool or the slow LLM call is in flight, and wait for its end. */
async function runAndInterrupt(sessionId: string, slow: 'tool' | 'llm'): Promise<Interrupted> {
  gate = createGate();
  llm.use(notesScript(slow));
  const handle = await runtime.executor.execute(agent, 'take notes', { sessionId });
  const streamed = collectChunks(handle);
  await gate.entered;
  await handle.interrupt('user pressed stop');
  gate.open();
  const result = await handle.result();
  return { handle, result, chunks: await streamed };
}

/** What every interrupted run must show: status, terminal chunk, resumability, no LLM call after the flag. */
async function expectInterrupted({ handle, result, chunks }: Interrupted, steps: number): Promise<void> {
  expect(result).toMatchObject({ status: 'interrupted', completionReason: 'interrupted', runId: handle.runId, stepCount: steps });
  expect(chunks.at(-1)).toMatchObject({ type: 'run_interrupted', runId: handle.runId, reason: 'user pressed stop' });
  expect(chunks.filter((chunk) => chunk.type === 'output' || chunk.type === 'error')).toEqual([]);
  expect(await handle.canResume()).toBe(true);
  expect(await handle.getState()).toMatchObject({ status: 'interrupted', interruptContext: { runId: handle.runId, reason: 'user pressed stop' } });
  // The step in flight finished and committed; the next step's LLM call never happened.
  expect(llm.adapter.callCount).toBe(steps);
  expect((await runtime.stateStore.getRun(handle.sessionId, handle.runId))?.status).toBe('interrupted');
}

/** Resumed runs: one new run record per turn, contiguous turns, linked to the interrupted run; the hook saw the link. */
async function expectResumedTurn(sessionId: string, interrupted: string, next: AgentExecutionHandle<unknown>): Promise<void> {
  expect(next.runId).not.toBe(interrupted);
  const { runs } = await runtime.stateStore.listRuns(sessionId);
  expect(runs.map((run) => [run.turn, run.runId, run.status])).toEqual([
    [1, interrupted, 'interrupted'],
    [2, next.runId, 'completed'],
  ]);
  expect(runs[1]?.previousRunId).toBe(interrupted);
  expect(resumed.filter((event) => event.sessionId === sessionId)).toEqual([expect.objectContaining({ runId: next.runId, previousRunId: interrupted })]);
  expect((await runtime.stateStore.loadState(sessionId))?.resumeCount).toBe(1);
}

describe('resume modes after an interrupt at a step boundary', () => {
  it("'continue': interrupted during a slow tool, the next LLM call sees the full history", async () => {
    const interrupted = await runAndInterrupt('mode-continue', 'tool');
    await expectInterrupted(interrupted, 2);

    const next = await runtime.executor.resume(agent, 'mode-continue', { mode: 'continue' });
    expect(await next.result()).toMatchObject({ status: 'completed', output: 'resumed answer', runId: next.runId });
    expect(llm.adapter.callCount).toBe(3);
    expect(conversation(llm.adapter.calls[2]!.messages)).toEqual([
      'system:Notes: a,b',
      'user:take notes',
      'assistant:[note-a]',
      'tool:note-a',
      'assistant:[note-b]',
      'tool:note-b',
    ]);
    await expectResumedTurn('mode-continue', interrupted.handle.runId, next);
    expect(await next.canResume()).toBe(false);
  });

  it("'with_message': interrupted during a slow LLM call, the message is the last user turn before the next call", async () => {
    const interrupted = await runAndInterrupt('mode-message', 'llm');
    await expectInterrupted(interrupted, 1);

    const next = await interrupted.handle.resume({ mode: 'with_message', message: 'Use metric units.' });
    expect(await next.result()).toMatchObject({ status: 'completed', output: 'resumed answer' });
    expect(conversation(llm.adapter.calls[1]!.messages)).toEqual([
      'system:Notes: a',
      'user:take notes',
      'assistant:[note-a]',
      'tool:note-a',
      'user:Use metric units.',
    ]);
    const { messages } = await runtime.stateStore.getMessages('mode-message');
    expect(conversation(messages)).toEqual(['user:take notes', 'assistant:[note-a]', 'tool:note-a', 'user:Use metric units.', 'assistant:resumed answer']);
    await expectResumedTurn('mode-message', interrupted.handle.runId, next);
  });

  it("'with_confirmation': appends the default text 'Confirmed.'", async () => {
    const interrupted = await runAndInterrupt('mode-confirm', 'tool');
    await expectInterrupted(interrupted, 2);

    const next = await runtime.executor.resume(agent, 'mode-confirm', { mode: 'with_confirmation' });
    expect(await next.result()).toMatchObject({ status: 'completed' });
    expect(conversation(llm.adapter.calls[2]!.messages).slice(-3)).toEqual(['assistant:[note-b]', 'tool:note-b', 'user:Confirmed.']);
    await expectResumedTurn('mode-confirm', interrupted.handle.runId, next);
  });

  it("'from_checkpoint': messages and custom state rewind to an earlier checkpoint", async () => {
    const interrupted = await runAndInterrupt('mode-checkpoint', 'tool');
    await expectInterrupted(interrupted, 2);
    const runId = interrupted.handle.runId;
    expect((await runtime.stateStore.loadState<Notes>('mode-checkpoint'))?.customState.notes).toEqual(['a', 'b']);

    const checkpoints = await runtime.stateStore.listCheckpoints('mode-checkpoint');
    expect(checkpoints.map((checkpoint) => checkpoint.id)).toEqual([`${runId}:1`, `${runId}:2`]);
    const earlier = checkpoints[0]!;
    expect(earlier).toMatchObject({ messageCount: 3, customState: { notes: ['a'] } });

    const next = await runtime.executor.resume(agent, 'mode-checkpoint', { mode: 'from_checkpoint', checkpointId: earlier.id });
    expect(await next.result()).toMatchObject({ status: 'completed', output: 'resumed answer' });
    // The LLM saw the rewound history and a system prompt built from the checkpoint's state.
    expect(conversation(llm.adapter.calls[2]!.messages)).toEqual(['system:Notes: a', 'user:take notes', 'assistant:[note-a]', 'tool:note-a']);
    const { messages } = await runtime.stateStore.getMessages('mode-checkpoint');
    expect(conversation(messages)).toEqual(['user:take notes', 'assistant:[note-a]', 'tool:note-a', 'assistant:resumed answer']);
    expect(messages.map((message) => message.sequence)).toEqual([1, 2, 3, 4]);
    expect((await runtime.stateStore.loadState<Notes>('mode-checkpoint'))?.customState.notes).toEqual(['a']);
    await expectResumedTurn('mode-checkpoint', runId, next);
    expect(resumed.find((event) => event.sessionId === 'mode-checkpoint')?.resumedFromCheckpointId).toBe(earlier.id);
  });
});

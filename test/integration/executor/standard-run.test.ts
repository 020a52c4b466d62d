import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { DBOSModeMismatchError, InvalidArgumentError, SessionIdRequiredError, SessionNotContinuableError, WorkspaceUnsupportedError } from '../../../src/errors/index.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import type { MockLLMResponse } from '../../../src/llm/mock/mock-llm-response.js';
import type { LLMGenerateInput } from '../../../src/types/llm.js';
import type { StreamChunk } from '../../../src/types/stream.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';

type Script = (input: LLMGenerateInput, callIndex: number) => MockLLMResponse;
let script: Script = () => ({ type: 'text', text: 'unset' });
const llm = new MockLLMAdapter((input, callIndex) => script(input, callIndex));

let toolRuns = 0;
const addNote = defineTool({
  name: 'add_note',
  description: 'Store a note',
  parameters: z.object({ note: z.string() }),
  execute: async ({ note }, context) => {
    toolRuns += 1;
    context.updateState((draft) => {
      (draft.notes as string[]).push(note);
    });
    return { saved: note };
  },
});

const noteAgent = defineAgent({
  name: 'note_taker',
  systemPrompt: 'Take notes.',
  tools: [addNote],
  stateSchema: z.object({ notes: z.array(z.string()).default([]) }),
  outputSchema: z.object({ summary: z.string() }),
  maxSteps: 5,
});
/** The same agent with an onAgentComplete hook: its finish writes each record on its own (stream end, then status). */
const hookedNoteAgent = defineAgent({ ...noteAgent, hooks: { onAgentComplete: async () => undefined } });

let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('executor_standard', llm);
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('DBOSAgentExecutor standard mode', () => {
  it('requires a sessionId and rejects workspaces with typed errors', async () => {
    await expect(runtime.executor.execute(noteAgent, 'hi', {} as { sessionId: string })).rejects.toSatisfy((error: unknown) => SessionIdRequiredError.isInstance(error));
    const withWorkspace = defineAgent({ name: 'ws_agent', systemPrompt: 'x', workspace: { kind: 'local' } });
    await expect(runtime.executor.execute(withWorkspace, 'hi', { sessionId: 'ws-1' })).rejects.toSatisfy((error: unknown) => WorkspaceUnsupportedError.isInstance(error));
    expect(await runtime.stateStore.loadState('ws-1')).toBeNull();
    expect(runtime.executor.describeCapabilities()).toEqual({ workspaceProviderKinds: [] });
  });

  it('refuses an agent name where the agent config is expected, at every entry point, storing nothing', async () => {
    const refused = (operation: string) => (error: unknown) =>
      InvalidArgumentError.isInstance(error) && error.message.includes(`${operation}() expects the agent's config from defineAgent()`) && error.message.includes('a string');
    const byName = 'planner' as unknown as typeof noteAgent;
    await expect(runtime.executor.execute(byName, 'hi', { sessionId: 'by-name-1' })).rejects.toSatisfy(refused('execute'));
    await expect(runtime.executor.resume(byName, 'by-name-1')).rejects.toSatisfy(refused('resume'));
    await expect(runtime.executor.retry(byName, 'by-name-1')).rejects.toSatisfy(refused('retry'));
    await expect(runtime.executor.getHandle(byName, 'by-name-1')).rejects.toSatisfy(refused('getHandle'));
    await expect(runtime.executor.execute(undefined as unknown as typeof noteAgent, 'hi', { sessionId: 'by-name-1' })).rejects.toSatisfy(
      (error: unknown) => InvalidArgumentError.isInstance(error) && error.message.includes('not undefined'),
    );
    expect(await runtime.stateStore.loadState('by-name-1')).toBeNull();
  });

  it('rejects an unknown mode and a mode that conflicts with the session', async () => {
    await expect(runtime.executor.execute(noteAgent, 'hi', { sessionId: 'mode-1', mode: 'turbo' as never })).rejects.toSatisfy(
      (error: unknown) => InvalidArgumentError.isInstance(error),
    );
    expect(await runtime.stateStore.loadState('mode-1')).toBeNull();
    await runtime.stateStore.createSession('mode-2', { agentType: 'note_taker', mode: 'persistent', status: 'completed' });
    const error: unknown = await runtime.executor.execute(noteAgent, 'hi', { sessionId: 'mode-2' }).catch((caught: unknown) => caught);
    expect(DBOSModeMismatchError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'DBOS_MODE_MISMATCH', expected: 'persistent', actual: 'standard' });
  });

  it('runs tools, commits state and returns structured output', async () => {
    script = (_input, callIndex) =>
      callIndex === 0
        ? { type: 'tool_calls', toolCalls: [{ id: 'c1', name: 'add_note', arguments: { note: 'milk' } }, { id: 'c2', name: 'add_note', arguments: { note: 'eggs' } }] }
        : { type: 'structured_output', output: { summary: 'two notes' } };
    llm.reset();
    const before = toolRuns;
    const handle = await runtime.executor.execute(noteAgent, 'note milk and eggs', { sessionId: 'notes-1' });
    const chunks: StreamChunk[] = [];
    for await (const chunk of handle.stream()) chunks.push(chunk);
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', completionReason: 'finish_tool', output: { summary: 'two notes' }, stepCount: 2 });
    expect(toolRuns - before).toBe(2);
    const state = await handle.getState();
    expect([...(state?.customState as { notes: string[] }).notes].sort()).toEqual(['eggs', 'milk']);
    expect(state?.status).toBe('completed');
    const { messages } = await runtime.stateStore.getMessages('notes-1');
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant', 'tool']);
    expect(chunks.filter((chunk) => chunk.type === 'tool_end').map((chunk) => (chunk as { toolCallId: string }).toolCallId).sort()).toEqual(['c1', 'c2']);
    expect(chunks.at(-1)).toMatchObject({ type: 'output', output: { summary: 'two notes' } });
    const usage = await runtime.usageStore.getRunUsage('notes-1', handle.runId);
    expect(usage).toMatchObject({ llmCalls: 2, toolCalls: 2, toolFailures: 0 });
  });

  it('a message sent the moment the stream ends waits for the finishing run instead of AGENT_ALREADY_RUNNING (a finish that writes on its own)', async () => {
    script = () => ({ type: 'structured_output', output: { summary: 'done' } });
    const store = runtime.stateStore;
    const saveState = store.saveState.bind(store);
    // With an onAgentComplete hook the finish step ends the stream, then writes the status: widen that gap. (Without
    // one, both commit in one transaction with the finish's record: no gap.)
    store.saveState = async (...args) => {
      if (args[1].status === 'completed') await new Promise((resolve) => setTimeout(resolve, 400));
      return saveState(...args);
    };
    try {
      const first = await runtime.executor.execute(hookedNoteAgent, 'first', { sessionId: 'finishing-1' });
      for await (const _chunk of first.stream()) void _chunk; // read to the end, like a chat client
      expect((await store.loadState('finishing-1'))?.status).toBe('active');
      const second = await runtime.executor.execute(hookedNoteAgent, 'second', { sessionId: 'finishing-1' });
      expect(second.runId).not.toBe(first.runId);
      expect(await second.result()).toMatchObject({ status: 'completed' });
    } finally {
      store.saveState = saveState;
    }
  });

  it('a message whose session read predates the finish (session still active, run already completed) starts the next turn', async () => {
    script = () => ({ type: 'structured_output', output: { summary: 'done' } });
    const store = runtime.stateStore;
    const first = await runtime.executor.execute(noteAgent, 'first', { sessionId: 'straddled-1' });
    await first.result();
    // The first session read of the next execute() as if taken just before the finish step's two writes.
    const loadState = store.loadState.bind(store);
    let stale = true;
    store.loadState = (async (sessionId: string) => {
      const state = await loadState(sessionId);
      if (!stale || state === null) return state;
      stale = false;
      return { ...state, status: 'active' };
    }) as typeof store.loadState;
    try {
      const second = await runtime.executor.execute(noteAgent, 'second', { sessionId: 'straddled-1' });
      expect(second.runId).not.toBe(first.runId);
      expect(await second.result()).toMatchObject({ status: 'completed' });
    } finally {
      store.loadState = loadState;
    }
  });

  it("a message read between an abort's two writes (run aborted, session not yet failed) gets the session's refusal", async () => {
    script = () => ({ type: 'structured_output', output: { summary: 'done' } });
    const store = runtime.stateStore;
    const first = await runtime.executor.execute(noteAgent, 'first', { sessionId: 'straddled-abort' });
    await first.result();
    // As recordRunAborted leaves them for a moment: the run aborted, the session still active.
    await store.compareAndSetStatus('straddled-abort', ['completed'], 'active');
    await store.updateRunStatus('straddled-abort', first.runId, 'aborted', { completionReason: 'aborted', endedAt: Date.now() });
    const next = runtime.executor.execute(noteAgent, 'second', { sessionId: 'straddled-abort' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await store.updateStatus('straddled-abort', 'failed', { failureReason: 'aborted' });
    await expect(next).rejects.toSatisfy((error: unknown) => SessionNotContinuableError.isInstance(error) && error.status === 'aborted');
  });

  it('continues a completed session as a new run that sees the conversation', async () => {
    script = () => ({ type: 'structured_output', output: { summary: 'continued' } });
    llm.reset();
    const first = await runtime.executor.getHandle(noteAgent, 'notes-1');
    const handle = await runtime.executor.execute(noteAgent, 'anything else?', { sessionId: 'notes-1' });
    expect(handle.runId).not.toBe(first?.runId);
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', output: { summary: 'continued' }, stepCount: 1 });
    expect(llm.calls[0]?.messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual([
      'note milk and eggs',
      'anything else?',
    ]);
    const { runs } = await runtime.stateStore.listRuns('notes-1');
    expect(runs.map((run) => run.turn)).toEqual([1, 2]);
    expect(runs.map((run) => run.status)).toEqual(['completed', 'completed']);
  });

  it('starts exactly one run for 50 concurrent executes of a new session', async () => {
    // The run outlives every call's arrival, however loaded the machine: a call arriving after the turn completed
    // would rightly start the session's next turn.
    script = () => ({ type: 'structured_output', output: { summary: 'once' }, delayMs: 1_500 });
    llm.reset();
    const handles = await Promise.all(
      Array.from({ length: 50 }, () => runtime.executor.execute(noteAgent, 'race', { sessionId: 'race-1' })),
    );
    expect(new Set(handles.map((handle) => handle.runId)).size).toBe(1);
    await handles[0]?.result();
    expect((await runtime.stateStore.listRuns('race-1')).runs).toHaveLength(1);
    expect(llm.callCount).toBe(1);
  });
});

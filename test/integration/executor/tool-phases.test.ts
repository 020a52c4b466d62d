import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool, type ToolContext } from '../../../src/agent/index.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, scriptedLLM, sleep, toolResults } from './executor-test-kit.js';

type NotesState = { notes: string[]; tally: number };

/** Start/end timestamps of every tool execution, by toolCallId. */
const spans = new Map<string, { start: number; end: number }>();

const addNote = defineTool({
  name: 'add_note',
  description: 'Append a note',
  parameters: z.object({ note: z.string(), delayMs: z.number().int().nonnegative() }),
  execute: async ({ note, delayMs }, context: ToolContext<NotesState>) => {
    const start = Date.now();
    await sleep(delayMs);
    context.updateState((draft) => {
      draft.notes.push(note);
      draft.tally += 1;
    });
    spans.set(context.toolCallId, { start, end: Date.now() });
    return { added: note };
  },
});

const publish = defineTool({
  name: 'publish',
  description: 'Publish the notes and finish',
  parameters: z.object({ title: z.string() }),
  finishWith: true,
  execute: async ({ title }, context: ToolContext<NotesState>) => {
    spans.set(context.toolCallId, { start: Date.now(), end: Date.now() });
    const { notes, tally } = context.getState();
    return { title, notes: [...notes].sort(), tally };
  },
});

const failingPublish = defineTool({
  name: 'publish_or_fail',
  description: 'Finish, unless told to fail',
  parameters: z.object({ fail: z.boolean() }),
  finishWith: true,
  execute: async ({ fail }) => {
    if (fail) throw new Error('not ready');
    return { published: true };
  },
});

const agent = defineAgent({
  name: 'phase_agent',
  systemPrompt: 'Take notes, then publish.',
  tools: [addNote, publish, failingPublish],
  stateSchema: z.object({ notes: z.array(z.string()).default([]), tally: z.number().default(0) }),
  maxSteps: 4,
});

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('executor_tool_phases', llm.adapter, {
    toolRetryPolicy: { maxAttempts: 1 },
  });
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('two-phase tool execution', () => {
  it('runs finishWith after every phase-1 tool, sees their state, and completes with its result', async () => {
    // The finishWith call sits between the two regular calls: phase order, not call order, decides.
    llm.use((_input, callIndex) =>
      callIndex === 0
        ? {
            type: 'tool_calls',
            toolCalls: [
              { id: 'p1-slow', name: 'add_note', arguments: { note: 'slow', delayMs: 200 } },
              { id: 'p1-publish', name: 'publish', arguments: { title: 'Notes' } },
              { id: 'p1-fast', name: 'add_note', arguments: { note: 'fast', delayMs: 20 } },
            ],
          }
        : undefined,
    );
    const handle = await runtime.executor.execute(agent, 'take notes', { sessionId: 'phases-1' });
    const chunks = await collectChunks(handle);
    const result = await handle.result();

    const published = { title: 'Notes', notes: ['fast', 'slow'], tally: 1 };
    expect(result).toMatchObject({ status: 'completed', completionReason: 'finish_tool', output: published, stepCount: 1 });
    expect(llm.adapter.callCount).toBe(1);

    const slow = spans.get('p1-slow')!;
    const fast = spans.get('p1-fast')!;
    const finishing = spans.get('p1-publish')!;
    expect(fast.start).toBeLessThan(slow.end); // phase 1 ran in parallel
    expect(finishing.start).toBeGreaterThanOrEqual(Math.max(slow.end, fast.end)); // phase 2 after phase 1

    const state = await handle.getState();
    expect(state).toMatchObject({ status: 'completed', output: published });
    // Both parallel appends survived (append ops compose); the replace of `tally` is last-write-wins.
    expect([...(state?.customState as NotesState).notes].sort()).toEqual(['fast', 'slow']);
    expect((state?.customState as NotesState).tally).toBe(1);

    const toolEnds = chunks.filter((chunk) => chunk.type === 'tool_end').map((chunk) => chunk.toolCallId);
    expect(toolEnds.at(-1)).toBe('p1-publish');
    expect(chunks.at(-1)).toMatchObject({ type: 'output', output: published });
    const { messages } = await runtime.stateStore.getMessages('phases-1');
    expect(toolResults(messages).map((message) => message.toolCallId)).toEqual(['p1-slow', 'p1-publish', 'p1-fast']);
  });

  it('a failing finishWith tool does not complete the run: its error goes back to the LLM', async () => {
    llm.use((_input, callIndex) =>
      callIndex === 0
        ? { type: 'tool_calls', toolCalls: [{ id: 'p2-fail', name: 'publish_or_fail', arguments: { fail: true } }] }
        : callIndex === 1
          ? { type: 'tool_calls', toolCalls: [{ id: 'p2-ok', name: 'publish_or_fail', arguments: { fail: false } }] }
          : undefined,
    );
    const handle = await runtime.executor.execute(agent, 'publish', { sessionId: 'phases-2' });
    const result = await handle.result();

    expect(result).toMatchObject({ status: 'completed', completionReason: 'finish_tool', output: { published: true }, stepCount: 2 });
    const secondCall = llm.adapter.calls[1]!;
    expect(toolResults(secondCall.messages)).toEqual([
      expect.objectContaining({ toolCallId: 'p2-fail', isError: true, content: expect.stringContaining('not ready') }),
    ]);
  });
});

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import type { AgentHooks } from '../../../src/hooks/types.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from './executor-test-kit.js';

const llm = scriptedLLM();
/** `getCurrentRun` and `getInfo` calls of each session, and what each hook saw of them when it fired. */
const reads = new Map<string, { runs: number; streams: number }>();
const seen: string[] = [];

const countsOf = (sessionId: string) => reads.get(sessionId) ?? { runs: 0, streams: 0 };
const note = (sessionId: string, event: string): void => {
  const { runs, streams } = countsOf(sessionId);
  seen.push(`${sessionId}|${event}|runs:${runs}|streams:${streams}`);
};
const hooks: AgentHooks = {
  beforeLLMCall: (event) => note(event.sessionId, `before:${event.step}`),
  afterLLMCall: (event) => note(event.sessionId, `after:${event.step}`),
};
const lookup = defineTool({ name: 'lookup', description: 'Look up.', parameters: z.object({}), execute: async () => ({ found: true }) });
const answering = defineAgent({ name: 'finish_reads_agent', systemPrompt: 'Answer.', tools: [lookup], hooks });
const completing = defineAgent({ name: 'finish_reads_complete_hook', systemPrompt: 'Answer.', hooks: { ...hooks, onAgentComplete: () => undefined } });

let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('finish_reads', llm.adapter);
  const { stateStore, streamManager } = runtime;
  const getCurrentRun = stateStore.getCurrentRun.bind(stateStore);
  stateStore.getCurrentRun = (sessionId) => {
    reads.set(sessionId, { ...countsOf(sessionId), runs: countsOf(sessionId).runs + 1 });
    return getCurrentRun(sessionId);
  };
  const getInfo = streamManager.getInfo.bind(streamManager);
  streamManager.getInfo = (streamId) => {
    reads.set(streamId, { ...countsOf(streamId), streams: countsOf(streamId).streams + 1 });
    return getInfo(streamId);
  };
});
afterAll(async () => {
  await runtime?.shutdown();
});

/** How many reads of each kind went out during LLM step `step` (between its two hooks). */
function readsDuring(sessionId: string, step: number): { runs: number; streams: number } {
  const at = (event: string) => {
    const entry = seen.find((line) => line.startsWith(`${sessionId}|${event}|`));
    if (entry === undefined) throw new Error(`no ${event} for ${sessionId}`);
    const [, , runs, streams] = entry.split('|');
    return { runs: Number(runs?.split(':')[1]), streams: Number(streams?.split(':')[1]) };
  };
  const before = at(`before:${step}`);
  const after = at(`after:${step}`);
  return { runs: after.runs - before.runs, streams: after.streams - before.streams };
}

describe("a run's finish reads", () => {
  it('are started by the LLM step that answers without tool calls, and taken by the finish instead of reading again', async () => {
    llm.use((input) =>
      input.step === 1 ? { type: 'tool_calls', toolCalls: [{ id: 'c1', name: 'lookup', arguments: {} }] } : { type: 'text', text: 'Found.' },
    );
    const handle = await runtime.executor.execute(answering, 'Look it up.', { sessionId: 'reads-1' });
    const result = await handle.result();
    expect([result.status, result.output, result.stepCount]).toEqual(['completed', 'Found.', 2]);
    // The step calling a tool starts nothing; the answering step starts both reads while it records itself.
    expect(readsDuring('reads-1', 1)).toEqual({ runs: 0, streams: 0 });
    expect(readsDuring('reads-1', 2)).toEqual({ runs: 1, streams: 1 });
    const afterAnswer = seen.find((line) => line.startsWith('reads-1|after:2|'));
    const total = countsOf('reads-1');
    // No read of either kind after the answer until the run ended (the handle's own reads aside, none here).
    expect(`reads-1|after:2|runs:${total.runs}|streams:${total.streams}`).toBe(afterAnswer);
  });

  it("read no stream for a finish that cannot join its record (an onAgentComplete hook), and the run's reads once", async () => {
    llm.use(() => ({ type: 'text', text: 'Done.' }));
    const handle = await runtime.executor.execute(completing, 'Hi.', { sessionId: 'reads-2' });
    expect((await handle.result()).status).toBe('completed');
    expect(readsDuring('reads-2', 1)).toEqual({ runs: 1, streams: 0 });
    const afterAnswer = seen.find((line) => line.startsWith('reads-2|after:1|'));
    expect(afterAnswer).toBe(`reads-2|after:1|runs:${countsOf('reads-2').runs}|streams:${countsOf('reads-2').streams}`);
  });

  it("write the session's outcome with the last step's commit on the fused journal: the finish reads no session row", async () => {
    llm.use(() => ({ type: 'text', text: 'Folded.' }));
    const spy = vi.spyOn(pg.Client.prototype, 'query');
    try {
      const handle = await runtime.executor.execute(answering, 'Hi.', { sessionId: 'reads-3' });
      const result = await handle.result();
      expect([result.status, result.output]).toEqual(['completed', 'Folded.']);
      const texts = spy.mock.calls.map(([config]) => (typeof config === 'string' ? config : (config as { text?: string })?.text) ?? '');
      const sessionLocks = texts.filter((text) => /__agents_sessions" WHERE session_id = \$1 FOR NO KEY UPDATE/.test(text));
      // The start creates the session without reading it; the fused finish writes its outcome with the step's commit.
      // (The public journal's finish writes on its own, after the record: its reads are not this test's.)
      if (process.env.HELIX_JOURNAL !== 'public') expect(sessionLocks).toEqual([]);
      const state = await runtime.stateStore.loadState('reads-3');
      expect([state?.status, state?.output, state?.stepCount]).toEqual(['completed', 'Folded.', 1]);
    } finally {
      spy.mockRestore();
    }
  });

  it("send the stream's end ahead on the fused journal: the run's update leaves before its answer", async () => {
    llm.use(() => ({ type: 'text', text: 'Ahead.' }));
    const events: string[] = [];
    const query = Reflect.get(pg.Client.prototype, 'query') as (...args: unknown[]) => unknown;
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as string | { text?: string };
      const text = (typeof config === 'string' ? config : config?.text) ?? '';
      const answer = Reflect.apply(query, this, args) as Promise<unknown> | undefined;
      if (/^\s*WITH changed AS \(\s*INSERT INTO "public"\.__agents_streams AS s/.test(text)) {
        events.push('end sent');
        void answer?.then(() => events.push('end answered'), () => events.push('end answered'));
      } else if (/UPDATE "public"\."__agents_runs" SET status/.test(text)) events.push('run sent');
      return answer as never;
    });
    try {
      const handle = await runtime.executor.execute(answering, 'Hi.', { sessionId: 'reads-4' });
      expect((await handle.result()).status).toBe('completed');
      const finish = events.slice(events.indexOf('end sent'));
      if (process.env.HELIX_JOURNAL !== 'public') expect(finish.slice(0, 3)).toEqual(['end sent', 'run sent', 'end answered']);
      else expect(finish).toContain('end answered');
    } finally {
      spy.mockRestore();
    }
  });
});

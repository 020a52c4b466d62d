import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import type { AgentResumedEvent, AgentStartEvent } from '../../../src/hooks/types.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';
import { createGate, type Gate } from './run-control-kit.js';

let gate: Gate = createGate();
const slowLookup = defineTool({
  name: 'slow_lookup',
  description: 'Look something up, slowly',
  parameters: z.object({ q: z.string() }),
  execute: async ({ q }) => {
    await gate.pass();
    return { found: q };
  },
});

const resumed: AgentResumedEvent[] = [];
const starts: AgentStartEvent[] = [];
const agent = defineAgent({
  name: 'race_agent',
  systemPrompt: 'Look up, then answer.',
  tools: [slowLookup],
  maxSteps: 4,
  hooks: { onAgentResumed: (event) => void resumed.push(event), onAgentStart: (event) => void starts.push(event) },
});

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('run_control_race', llm.adapter);
});
afterAll(async () => {
  await runtime?.shutdown();
});

/** Run until the slow lookup, interrupt, and wait for the interrupted outcome. Returns the interrupted runId. */
async function interruptedSession(sessionId: string): Promise<string> {
  gate = createGate();
  llm.use((_input, callIndex) =>
    callIndex === 0 ? { type: 'tool_calls', toolCalls: [{ id: `look-${sessionId}`, name: 'slow_lookup', arguments: { q: 'x' } }] } : { type: 'text', text: 'answer' },
  );
  const handle = await runtime.executor.execute(agent, 'look it up', { sessionId });
  await gate.entered;
  await handle.interrupt();
  gate.open();
  expect(await handle.result()).toMatchObject({ status: 'interrupted' });
  expect(llm.adapter.callCount).toBe(1);
  return handle.runId;
}

describe('concurrent resume() calls on one interrupted session', () => {
  it.each([2, 20])('%i concurrent resumes start exactly one run', async (callers) => {
    const sessionId = `race-${callers}`;
    const interrupted = await interruptedSession(sessionId);

    // Half through the executor, half through the interrupted run's handle.
    const handle = (await runtime.executor.getHandle(agent, sessionId))!;
    const handles = await Promise.all(
      Array.from({ length: callers }, (_, index) => (index % 2 === 0 ? runtime.executor.resume(agent, sessionId) : handle.resume())),
    );
    const runIds = new Set(handles.map((each) => each.runId));
    expect(runIds.size).toBe(1);
    const [runId] = [...runIds];
    expect(runId).not.toBe(interrupted);

    const results = await Promise.all(handles.map((each) => each.result()));
    for (const result of results) expect(result).toMatchObject({ status: 'completed', output: 'answer', runId });

    // One LLM call for the resumed step, one new run record, one start and one resumed hook.
    expect(llm.adapter.callCount).toBe(2);
    const { runs } = await runtime.stateStore.listRuns(sessionId);
    expect(runs.map((run) => [run.turn, run.runId, run.status])).toEqual([
      [1, interrupted, 'interrupted'],
      [2, runId, 'completed'],
    ]);
    expect(starts.filter((event) => event.sessionId === sessionId).map((event) => event.runId)).toEqual([interrupted, runId]);
    expect(resumed.filter((event) => event.sessionId === sessionId)).toEqual([expect.objectContaining({ runId, previousRunId: interrupted })]);
    const state = await runtime.stateStore.loadState(sessionId);
    expect(state).toMatchObject({ status: 'completed', resumeCount: 1 });
    const { messages } = await runtime.stateStore.getMessages(sessionId);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });
});

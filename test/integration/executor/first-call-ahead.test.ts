import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { defineAgent } from '../../../src/agent/index.js';
import { HookManager } from '../../../src/hooks/index.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { setRunBoundaryProbeForTesting } from '../../../src/steps/run-boundary-probe.js';
import type { StreamChunk } from '../../../src/types/stream.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';

const agent = defineAgent({ name: 'call_ahead_agent', systemPrompt: 'Answer.', maxSteps: 2 });
let onModelCall: () => void = () => undefined;
const llm = new MockLLMAdapter(() => {
  onModelCall();
  return { type: 'text', text: 'answered ahead' };
});

let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('call_ahead', llm);
});
afterEach(() => {
  setRunBoundaryProbeForTesting(undefined);
  onModelCall = () => undefined;
});
afterAll(async () => {
  await runtime?.shutdown();
});

/**
 * Run one turn, holding the run's begin (at its last point, before its step's record) until the model is called or
 * 500 ms passed: whether the model was called while the begin ran, and the turn's streamed text.
 */
async function turnWatchingTheBegin(sessionId: string, message: string, hookManager?: HookManager): Promise<{ calledDuringBegin: boolean; text: string }> {
  let called!: () => void;
  const modelCalled = new Promise<void>((resolve) => (called = resolve));
  onModelCall = () => called();
  let calledDuringBegin = false;
  setRunBoundaryProbeForTesting(async (point, probed) => {
    if (point !== 'begin_deferred' || probed !== sessionId) return;
    const waited = await Promise.race([modelCalled.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 500))]);
    calledDuringBegin = waited;
  });
  const handle = await runtime.executor.execute(agent, message, { sessionId, ...(hookManager === undefined ? {} : { hookManager }) });
  const chunks: StreamChunk[] = [];
  for await (const chunk of handle.stream()) chunks.push(chunk);
  expect(await handle.result()).toMatchObject({ status: 'completed', output: 'answered ahead' });
  const text = chunks.flatMap((chunk) => (chunk.type === 'text_delta' ? [chunk.delta] : [])).join('');
  return { calledDuringBegin, text };
}

describe("a fresh turn's first model call", () => {
  it('goes out while the run begins (once DBOS recorded its start), is adopted by the first LLM step and streamed once; turn 1 and turn 2', async () => {
    const calls = llm.callCount;
    for (const message of ['first', 'second']) {
      const turn = await turnWatchingTheBegin('ahead-1', message);
      expect(turn).toEqual({ calledDuringBegin: true, text: 'answered ahead' });
    }
    expect(llm.callCount - calls).toBe(2);
    const messages = (await runtime.stateStore.getMessages('ahead-1')).messages;
    expect(messages.map((stored) => [stored.role, stored.content])).toEqual([
      ['user', 'first'],
      ['assistant', 'answered ahead'],
      ['user', 'second'],
      ['assistant', 'answered ahead'],
    ]);
    const run = (await runtime.stateStore.listRuns('ahead-1')).runs[0];
    const steps = await DBOS.listWorkflowSteps(run?.workflowId ?? '');
    expect(steps?.map((step) => step.name)).toEqual(['BeginRunStep', 'CallLLMStep', 'FinishRunStep']);
  });

  it('waits for the first LLM step when a beforeLLMCall hook must fire first', async () => {
    const hookManager = new HookManager({ hooks: [{ beforeLLMCall: () => undefined }] });
    const turn = await turnWatchingTheBegin('ahead-2', 'hooked', hookManager);
    expect(turn).toEqual({ calledDuringBegin: false, text: 'answered ahead' });
  });
});

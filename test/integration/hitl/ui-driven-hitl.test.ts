import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import type { LLMGenerateInput } from '../../../src/types/llm.js';
import type { MockLLMResponse } from '../../../src/llm/mock/mock-llm-response.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import type { StreamChunk } from '../../../src/types/stream.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { waitForRunStatus } from '../run-control/run-control-kit.js';

/** Long enough that a UI must not wait for it; short enough to park a run within a test. */
const WARM_MS = 3_000;
let script: (input: LLMGenerateInput, callIndex: number) => MockLLMResponse = () => ({ type: 'text', text: 'unset' });
const llm = new MockLLMAdapter((input, callIndex) => script(input, callIndex));
const pickCity = defineTool({ name: 'pick_city', description: 'Ask the user', parameters: z.object({ prompt: z.string() }), execute: 'client' });
const transfer = defineTool({
  name: 'transfer',
  description: 'Move money',
  parameters: z.object({ amount: z.number() }),
  requireApproval: true,
  execute: async ({ amount }) => ({ moved: amount }),
});
const agent = defineAgent({ name: 'ui_hitl_agent', systemPrompt: 'Help.', tools: [pickCity, transfer], maxSteps: 6 });

function scriptCalls(toolCalls: Array<{ id: string; name: string; arguments: Record<string, unknown> }>): void {
  script = (input, callIndex) => {
    if (callIndex === 0) return { type: 'tool_calls', toolCalls };
    return { type: 'text', text: `done: ${input.messages.filter((message) => message.role === 'tool').length}` };
  };
  llm.reset();
}

let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('ui_hitl', llm, { hitlWarmWindowMs: WARM_MS, autoResumeOnSubmit: true, toolRetryPolicy: { maxAttempts: 1 } });
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('human-in-the-loop a UI can drive', () => {
  it('a stream reader learns at once that the run waits, for which calls and which kind; submit says it continues by itself', async () => {
    scriptCalls([
      { id: 'city-1', name: 'pick_city', arguments: { prompt: 'Where?' } },
      { id: 'pay-1', name: 'transfer', arguments: { amount: 500 } },
    ]);
    const started = Date.now();
    const handle = await runtime.executor.execute(agent, 'plan', { sessionId: 'ui-1' });
    let waiting: Extract<StreamChunk, { type: 'run_suspended' }> | undefined;
    for await (const chunk of handle.stream()) {
      if (chunk.type === 'run_suspended') {
        waiting = chunk;
        break; // render the calls; the loop does not sit out the warm window
      }
    }
    expect(Date.now() - started).toBeLessThan(WARM_MS / 2);
    expect(waiting).toMatchObject({
      runId: handle.runId,
      reason: 'client_tool',
      calls: [
        { toolCallId: 'city-1', toolName: 'pick_city', kind: 'client' },
        { toolCallId: 'pay-1', toolName: 'transfer', kind: 'approval', approvalId: 'pay-1' },
      ],
    });
    const result = await handle.result();
    expect(result.status).toBe('suspended_client_tool');
    expect(result.suspended?.toolCallIds.sort()).toEqual(waiting!.calls.map((call) => call.toolCallId).sort());

    expect(await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'ui-1', toolCallId: 'city-1', result: 'Oslo' })).toMatchObject({
      status: 'accepted',
      next: 'continues',
    });
    expect(await runtime.executor.submitToolResult({ kind: 'approval-response', sessionId: 'ui-1', toolCallId: 'pay-1', approvalId: 'pay-1', approved: true })).toMatchObject({
      status: 'accepted',
      next: 'continues',
    });
    const final = await (await runtime.executor.getHandle(agent, 'ui-1'))!.result();
    expect(final).toMatchObject({ status: 'completed', runId: handle.runId, output: 'done: 2' });
  });

  it('a parked run: a partial answer needs resume(); the last answer resumes it by itself (autoResumeOnSubmit)', async () => {
    scriptCalls([
      { id: 'a-1', name: 'pick_city', arguments: { prompt: 'From?' } },
      { id: 'a-2', name: 'pick_city', arguments: { prompt: 'To?' } },
    ]);
    const handle = await runtime.executor.execute(agent, 'trip', { sessionId: 'ui-2' });
    expect(await waitForRunStatus(runtime.stateStore, 'ui-2', handle.runId, 'suspended_client_tool', WARM_MS * 4)).toBe('suspended_client_tool');
    expect(await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'ui-2', toolCallId: 'a-1', result: 'Oslo' })).toMatchObject({
      status: 'accepted',
      next: 'needs_resume',
    });
    expect((await runtime.stateStore.listRuns('ui-2')).runs).toHaveLength(1);
    const last = await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'ui-2', toolCallId: 'a-2', result: 'Rome' });
    expect(last).toMatchObject({ status: 'accepted', next: 'resumed' });
    expect(last.runId).not.toBe(handle.runId);
    const final = await (await runtime.executor.getHandle(agent, 'ui-2'))!.result();
    expect(final).toMatchObject({ status: 'completed', runId: last.runId, output: 'done: 2' });
  });

  it('concurrent last answers to a parked run start exactly one run', async () => {
    const ids = ['b-1', 'b-2', 'b-3', 'b-4'];
    scriptCalls(ids.map((id) => ({ id, name: 'pick_city', arguments: { prompt: id } })));
    const handle = await runtime.executor.execute(agent, 'many', { sessionId: 'ui-3' });
    expect(await waitForRunStatus(runtime.stateStore, 'ui-3', handle.runId, 'suspended_client_tool', WARM_MS * 4)).toBe('suspended_client_tool');
    const responses = await Promise.all(ids.map((toolCallId) => runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'ui-3', toolCallId, result: toolCallId })));
    expect(responses.every((response) => response.status === 'accepted')).toBe(true);
    const resumed = responses.filter((response) => response.next === 'resumed');
    expect(resumed.length).toBeGreaterThanOrEqual(1);
    expect(new Set(resumed.map((response) => response.runId)).size).toBe(1);
    const final = await (await runtime.executor.getHandle(agent, 'ui-3'))!.result();
    expect(final).toMatchObject({ status: 'completed', output: 'done: 4' });
    expect((await runtime.stateStore.listRuns('ui-3')).runs.map((run) => run.status)).toEqual(['suspended_client_tool', 'completed']);
  });
});

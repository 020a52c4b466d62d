import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import type { AgentExecutionHandle } from '../../../src/executor/types.js';
import type { AgentResumedEvent } from '../../../src/hooks/types.js';
import type { ToolResultMessage } from '../../../src/types/message.js';
import type { StreamChunk } from '../../../src/types/stream.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, scriptedLLM, sleep } from '../executor/executor-test-kit.js';
import { conversation, waitForRunStatus } from './run-control-kit.js';

/** A HITL wait stays warm this long, then the run parks. */
const WARM_MS = 2_000;

const transfers: number[] = [];
const publications: string[] = [];

const pickCity = defineTool({ name: 'pick_city', description: 'Ask the user for a city', parameters: z.object({ prompt: z.string() }), execute: 'client' });
const transfer = defineTool({
  name: 'transfer',
  description: 'Move money',
  parameters: z.object({ amount: z.number() }),
  requireApproval: true,
  execute: async ({ amount }) => {
    transfers.push(amount);
    return { moved: amount };
  },
});
const publish = defineTool({
  name: 'publish',
  description: 'Publish and finish',
  parameters: z.object({ title: z.string() }),
  finishWith: true,
  execute: async ({ title }) => {
    publications.push(title);
    return { published: title };
  },
});

const resumed: AgentResumedEvent[] = [];
const hooks = { onAgentResumed: (event: AgentResumedEvent) => void resumed.push(event) };
const agent = defineAgent({ name: 'mixed_agent', systemPrompt: 'Help.', tools: [pickCity, transfer, publish], maxSteps: 4, hooks });
const structuredAgent = defineAgent({
  name: 'structured_agent',
  systemPrompt: 'Answer with structure.',
  tools: [pickCity],
  outputSchema: z.object({ answer: z.string() }),
  maxSteps: 4,
  hooks,
});

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('run_control_mixed', llm.adapter, { hitlWarmWindowMs: WARM_MS });
});
afterAll(async () => {
  await runtime?.shutdown();
});

type Call = { id: string; name: string; arguments: Record<string, unknown> };

/** First call: the given batch; any later call: a text answer. */
function batchThenAnswer(calls: Call[]): void {
  llm.use((_input, callIndex) => (callIndex === 0 ? { type: 'tool_calls', toolCalls: calls } : { type: 'text', text: 'all done' }));
}

const clientResult = (sessionId: string, toolCallId: string, result: unknown) =>
  runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId, toolCallId, result });
const approval = (sessionId: string, toolCallId: string, approved: boolean) =>
  runtime.executor.submitToolResult({ kind: 'approval-response', sessionId, toolCallId, approvalId: toolCallId, approved });

/** Start the batch and wait until the run reports that it waits for both calls. */
async function startWaiting(sessionId: string, calls: Call[], runAgent = agent): Promise<{ handle: AgentExecutionHandle<unknown>; chunks: Promise<StreamChunk[]> }> {
  const handle = await runtime.executor.execute(runAgent, 'go', { sessionId });
  const chunks = collectChunks(handle);
  const waiting = await handle.result();
  expect(waiting).toMatchObject({ status: 'suspended_client_tool', runId: handle.runId });
  expect([...(waiting.suspended?.toolCallIds ?? [])].sort()).toEqual(calls.filter((call) => call.name !== 'publish' && call.name !== '__finish__').map((call) => call.id).sort());
  return { handle, chunks };
}

async function toolMessages(sessionId: string): Promise<ToolResultMessage[]> {
  return (await runtime.stateStore.getMessages(sessionId)).messages.filter((message): message is ToolResultMessage & { id: string; sequence: number } => message.role === 'tool');
}

async function resultOfCurrentRun(sessionId: string): Promise<ReturnType<AgentExecutionHandle<unknown>['result']>> {
  return (await runtime.executor.getHandle(agent, sessionId))!.result();
}

describe('a client tool and an approval-gated tool in the same LLM step', () => {
  it('approval first, then the client result: one continuation of the same run, results in call order', async () => {
    const calls = [
      { id: 'city-1', name: 'pick_city', arguments: { prompt: 'Where?' } },
      { id: 'pay-1', name: 'transfer', arguments: { amount: 250 } },
    ];
    batchThenAnswer(calls);
    const before = transfers.length;
    const { handle, chunks } = await startWaiting('mixed-1', calls);
    const pending = (await handle.getState())?.pendingClientToolCalls ?? {};
    expect(pending['city-1']).toMatchObject({ kind: 'client', runId: handle.runId });
    expect(pending['pay-1']).toMatchObject({ kind: 'approval', approvalId: 'pay-1', input: { amount: 250 } });

    expect(await approval('mixed-1', 'pay-1', true)).toMatchObject({ status: 'accepted' });
    // Still waiting, now for the client result only; nothing continued yet.
    expect(await resultOfCurrentRun('mixed-1')).toMatchObject({ status: 'suspended_client_tool', runId: handle.runId, suspended: { toolCallIds: ['city-1'] } });
    expect(llm.adapter.callCount).toBe(1);

    expect(await clientResult('mixed-1', 'city-1', { city: 'Oslo' })).toMatchObject({ status: 'accepted' });
    expect(await resultOfCurrentRun('mixed-1')).toMatchObject({ status: 'completed', output: 'all done', runId: handle.runId });

    expect(transfers.slice(before)).toEqual([250]);
    expect(llm.adapter.callCount).toBe(2);
    expect(conversation(llm.adapter.calls[1]!.messages)).toEqual(['system:Help.', 'user:go', 'assistant:[city-1,pay-1]', 'tool:city-1', 'tool:pay-1']);
    expect((await toolMessages('mixed-1')).map((message) => [message.toolCallId, message.content])).toEqual([
      ['city-1', { city: 'Oslo' }],
      ['pay-1', { moved: 250 }],
    ]);
    expect((await runtime.stateStore.listRuns('mixed-1')).runs.map((run) => [run.runId, run.status])).toEqual([[handle.runId, 'completed']]);
    expect(resumed.filter((event) => event.sessionId === 'mixed-1')).toEqual([expect.objectContaining({ runId: handle.runId, previousRunId: handle.runId })]);
    expect((await handle.getState())?.pendingClientToolCalls ?? {}).toEqual({});
    const seen = await chunks;
    expect(seen.flatMap((chunk) => (chunk.type === 'tool_approval_request' ? [chunk.toolCallId] : []))).toEqual(['pay-1']);
    expect(seen.flatMap((chunk) => (chunk.type === 'tool_start' && chunk.clientExecuted === true ? [chunk.toolCallId] : []))).toEqual(['city-1']);
    expect(seen.at(-1)).toMatchObject({ type: 'output', output: 'all done' });
  });

  it('client result first, then a denial: the gated tool never runs, results in call order', async () => {
    const calls = [
      { id: 'pay-2', name: 'transfer', arguments: { amount: 900 } },
      { id: 'city-2', name: 'pick_city', arguments: { prompt: 'Where?' } },
    ];
    batchThenAnswer(calls);
    const before = transfers.length;
    const { handle } = await startWaiting('mixed-2', calls);

    expect(await clientResult('mixed-2', 'city-2', 'Rome')).toMatchObject({ status: 'accepted' });
    expect(await resultOfCurrentRun('mixed-2')).toMatchObject({ status: 'suspended_client_tool', suspended: { toolCallIds: ['pay-2'] } });
    expect(llm.adapter.callCount).toBe(1);
    expect(await approval('mixed-2', 'pay-2', false)).toMatchObject({ status: 'accepted' });
    expect(await resultOfCurrentRun('mixed-2')).toMatchObject({ status: 'completed', runId: handle.runId });

    expect(transfers.length).toBe(before);
    expect(llm.adapter.callCount).toBe(2);
    expect((await toolMessages('mixed-2')).map((message) => [message.toolCallId, message.content, message.isError === true])).toEqual([
      ['pay-2', 'Tool call was not approved by the user', true],
      ['city-2', 'Rome', false],
    ]);
    expect((await runtime.stateStore.listRuns('mixed-2')).runs).toHaveLength(1);
  });

  it('parked after the warm window: both submissions, then one resume completes the step in call order', async () => {
    const calls = [
      { id: 'city-3', name: 'pick_city', arguments: { prompt: 'Where?' } },
      { id: 'pay-3', name: 'transfer', arguments: { amount: 30 } },
    ];
    batchThenAnswer(calls);
    const before = transfers.length;
    const { handle } = await startWaiting('mixed-3', calls);
    expect(await waitForRunStatus(runtime.stateStore, 'mixed-3', handle.runId, 'suspended_client_tool', WARM_MS + 5_000)).toBe('suspended_client_tool');

    await approval('mixed-3', 'pay-3', true);
    await clientResult('mixed-3', 'city-3', 'Lima');
    const next = await runtime.executor.resume(agent, 'mixed-3');
    expect(next.runId).not.toBe(handle.runId);
    expect(await next.result()).toMatchObject({ status: 'completed', output: 'all done' });
    expect(transfers.slice(before)).toEqual([30]);
    expect(llm.adapter.callCount).toBe(2);
    expect(conversation(llm.adapter.calls[1]!.messages)).toEqual(['system:Help.', 'user:go', 'assistant:[city-3,pay-3]', 'tool:city-3', 'tool:pay-3']);
    expect((await runtime.stateStore.listRuns('mixed-3')).runs.map((run) => run.status)).toEqual(['suspended_client_tool', 'completed']);
    expect(resumed.filter((event) => event.sessionId === 'mixed-3')).toEqual([expect.objectContaining({ runId: next.runId, previousRunId: handle.runId })]);
  });
});

describe('a finishing call in the same batch as a client tool', () => {
  it.each(['warm', 'parked'] as const)('finishWith runs once, after the client result (%s)', async (wait) => {
    const sessionId = `finish-with-${wait}`;
    const title = `report-${wait}`;
    const calls = [
      { id: `city-${wait}`, name: 'pick_city', arguments: { prompt: 'Where?' } },
      { id: `publish-${wait}`, name: 'publish', arguments: { title } },
    ];
    batchThenAnswer(calls);
    const { handle } = await startWaiting(sessionId, calls);
    if (wait === 'parked') {
      expect(await waitForRunStatus(runtime.stateStore, sessionId, handle.runId, 'suspended_client_tool', WARM_MS + 5_000)).toBe('suspended_client_tool');
    } else {
      await sleep(200);
    }
    expect(publications).not.toContain(title);

    await clientResult(sessionId, `city-${wait}`, 'Oslo');
    const final = wait === 'parked' ? await (await runtime.executor.resume(agent, sessionId)).result() : await resultOfCurrentRun(sessionId);
    expect(final).toMatchObject({ status: 'completed', completionReason: 'finish_tool', output: { published: title } });
    expect(publications.filter((each) => each === title)).toHaveLength(1);
    expect(llm.adapter.callCount).toBe(1);
    expect((await toolMessages(sessionId)).map((message) => message.toolCallId)).toEqual([`city-${wait}`, `publish-${wait}`]);
    expect(await runtime.stateStore.loadState(sessionId)).toMatchObject({ status: 'completed', output: { published: title } });
  });

  it.each(['warm', 'parked'] as const)('__finish__ completes the run with its output after the submission (%s)', async (wait) => {
    const sessionId = `finish-tool-${wait}`;
    const calls = [
      { id: `ask-${wait}`, name: 'pick_city', arguments: { prompt: 'Where?' } },
      { id: `done-${wait}`, name: '__finish__', arguments: { answer: `answer-${wait}` } },
    ];
    batchThenAnswer(calls);
    const { handle } = await startWaiting(sessionId, calls, structuredAgent);
    if (wait === 'parked') {
      expect(await waitForRunStatus(runtime.stateStore, sessionId, handle.runId, 'suspended_client_tool', WARM_MS + 5_000)).toBe('suspended_client_tool');
    }
    expect((await runtime.stateStore.loadState(sessionId))?.status).toBe('active');

    await clientResult(sessionId, `ask-${wait}`, 'Bergen');
    const final =
      wait === 'parked'
        ? await (await runtime.executor.resume(structuredAgent, sessionId)).result()
        : await (await runtime.executor.getHandle(structuredAgent, sessionId))!.result();
    expect(final).toMatchObject({ status: 'completed', completionReason: 'finish_tool', output: { answer: `answer-${wait}` } });
    expect(llm.adapter.callCount).toBe(1);
    expect((await toolMessages(sessionId)).map((message) => message.toolCallId)).toEqual([`ask-${wait}`, `done-${wait}`]);
    expect(await runtime.stateStore.loadState(sessionId)).toMatchObject({ status: 'completed', output: { answer: `answer-${wait}` } });
  });
});

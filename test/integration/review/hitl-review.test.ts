import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { NotResumableError } from '../../../src/errors/index.js';
import type { AgentResumedEvent, AgentSuspendedEvent } from '../../../src/hooks/types.js';
import type { Message } from '../../../src/types/message.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, scriptedLLM } from '../executor/executor-test-kit.js';
import { createGate, waitForRunStatus, type Gate } from '../run-control/run-control-kit.js';

/** A HITL wait stays warm this long, then the run parks. */
const WARM_MS = 600;

let gate: Gate = createGate();
const transfers: number[] = [];
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
const lookup = defineTool({ name: 'lookup', description: 'Look up', parameters: z.object({ q: z.string() }), execute: async ({ q }) => ({ found: q }) });

const suspended: AgentSuspendedEvent[] = [];
const resumed: AgentResumedEvent[] = [];
const agent = defineAgent({
  name: 'review_agent',
  systemPrompt: 'Help.',
  tools: [pickCity, transfer, lookup],
  maxSteps: 5,
  hooks: { onAgentSuspended: (event) => void suspended.push(event), onAgentResumed: (event) => void resumed.push(event) },
});

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('review_hitl', llm.adapter, { hitlWarmWindowMs: WARM_MS, toolRetryPolicy: { maxAttempts: 1 } });
});
afterAll(async () => {
  gate.open();
  await runtime?.shutdown();
});

type Call = { id: string; name: string; arguments: Record<string, unknown> };

/** First call: the given batch; any later call: a text answer. */
function batchThenAnswer(calls: Call[]): void {
  llm.use((_input, callIndex) => (callIndex === 0 ? { type: 'tool_calls', toolCalls: calls } : { type: 'text', text: 'all done' }));
}

/** Start a run with the batch and wait until it parked. */
async function parked(sessionId: string, calls: Call[]): Promise<string> {
  batchThenAnswer(calls);
  const handle = await runtime.executor.execute(agent, 'go', { sessionId });
  expect(await waitForRunStatus(runtime.stateStore, sessionId, handle.runId, 'suspended_client_tool', WARM_MS + 5_000)).toBe('suspended_client_tool');
  return handle.runId;
}

/** Tool call ids of assistant messages that no later tool message answers (what a provider rejects). */
function unpairedToolCalls(messages: readonly Message[]): string[] {
  const answered = new Set(messages.flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : [])));
  return messages.flatMap((message) => (message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => call.id) : [])).filter((id) => !answered.has(id));
}

const isNotResumable = (error: unknown): boolean => NotResumableError.isInstance(error);

describe('resume() of a parked session', () => {
  it('20 concurrent resumes after the submissions start exactly one run; the approved tool runs once', async () => {
    const sessionId = 'review-parked-race';
    const parkedRunId = await parked(sessionId, [
      { id: 'race-city', name: 'pick_city', arguments: { prompt: 'Where?' } },
      { id: 'race-pay', name: 'transfer', arguments: { amount: 77 } },
    ]);
    await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId, toolCallId: 'race-city', result: 'Oslo' });
    await runtime.executor.submitToolResult({ kind: 'approval-response', sessionId, toolCallId: 'race-pay', approvalId: 'race-pay', approved: true });
    const before = transfers.length;

    const handles = await Promise.all(Array.from({ length: 20 }, () => runtime.executor.resume(agent, sessionId)));
    const runIds = new Set(handles.map((handle) => handle.runId));
    expect(runIds.size).toBe(1);
    const results = await Promise.all(handles.map((handle) => handle.result()));
    for (const result of results) expect(result).toMatchObject({ status: 'completed', output: 'all done' });
    expect(transfers.slice(before)).toEqual([77]);
    expect(llm.adapter.callCount).toBe(2);
    const { runs } = await runtime.stateStore.listRuns(sessionId);
    expect(runs.map((run) => run.status)).toEqual(['suspended_client_tool', 'completed']);
    expect(runs[1]?.previousRunId).toBe(parkedRunId);
    expect((await runtime.stateStore.loadState(sessionId))?.resumeCount).toBe(1);
    const tools = (await runtime.stateStore.getMessages(sessionId)).messages.filter((message) => message.role === 'tool');
    expect(tools.map((message) => message.toolCallId)).toEqual(['race-city', 'race-pay']);
  });

  it('does not announce answered calls again: no second onAgentSuspended, no repeated tool_start / approval request', async () => {
    const sessionId = 'review-reannounce';
    const parkedRunId = await parked(sessionId, [
      { id: 'again-city', name: 'pick_city', arguments: { prompt: 'Where?' } },
      { id: 'again-pay', name: 'transfer', arguments: { amount: 5 } },
    ]);
    expect(suspended.filter((event) => event.sessionId === sessionId)).toHaveLength(1);
    await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId, toolCallId: 'again-city', result: 'Rome' });
    await runtime.executor.submitToolResult({ kind: 'approval-response', sessionId, toolCallId: 'again-pay', approvalId: 'again-pay', approved: false });

    const next = await runtime.executor.resume(agent, sessionId);
    const chunks = await collectChunks(next);
    expect(await next.result()).toMatchObject({ status: 'completed' });
    expect(suspended.filter((event) => event.sessionId === sessionId).map((event) => event.runId)).toEqual([parkedRunId]);
    expect(resumed.filter((event) => event.sessionId === sessionId)).toEqual([expect.objectContaining({ runId: next.runId, previousRunId: parkedRunId })]);
    expect(chunks.filter((chunk) => chunk.type === 'tool_approval_request' || (chunk.type === 'tool_start' && chunk.clientExecuted === true))).toEqual([]);
    expect(chunks.filter((chunk) => chunk.type === 'tool_end').map((chunk) => (chunk.type === 'tool_end' ? chunk.toolCallId : ''))).toEqual(['again-city', 'again-pay']);
  });
});

describe('resume() that fails before starting a run', () => {
  /** Interrupt a run before its first LLM call (its onAgentStart hook holds it): no checkpoint exists. */
  async function interruptedBeforeFirstStep(sessionId: string): Promise<void> {
    gate = createGate();
    llm.use(() => ({ type: 'text', text: 'answer' }));
    const handle = await runtime.executor.execute(agent, 'think', { sessionId, hooks: { onAgentStart: () => gate.pass() } });
    await gate.entered;
    await handle.interrupt('stop');
    gate.open();
    expect(await handle.result()).toMatchObject({ status: 'interrupted', stepCount: 0 });
    expect(llm.adapter.callCount).toBe(0);
  }

  it.each([
    ['the latest checkpoint (none exists)', undefined],
    ['an unknown checkpoint id', 'no-such-checkpoint'],
  ])("'from_checkpoint' to %s throws and leaves the interrupted session resumable", async (_what, checkpointId) => {
    const sessionId = `review-checkpoint-${checkpointId ?? 'latest'}`;
    await interruptedBeforeFirstStep(sessionId);
    expect(await runtime.stateStore.listCheckpoints(sessionId)).toEqual([]);
    await expect(runtime.executor.resume(agent, sessionId, { mode: 'from_checkpoint', ...(checkpointId === undefined ? {} : { checkpointId }) })).rejects.toSatisfy(
      isNotResumable,
    );
    expect(await runtime.stateStore.loadState(sessionId)).toMatchObject({ status: 'interrupted', resumeCount: 0 });
    const next = await runtime.executor.resume(agent, sessionId);
    expect(await next.result()).toMatchObject({ status: 'completed', output: 'answer' });
    expect((await runtime.stateStore.listRuns(sessionId)).runs.map((run) => run.status)).toEqual(['interrupted', 'completed']);
  });
});

describe('abort() of a parked session', () => {
  it('retry() afterwards gives the LLM a transcript where every tool call has a result', async () => {
    const sessionId = 'review-abort-parked';
    await parked(sessionId, [
      { id: 'abort-look', name: 'lookup', arguments: { q: 'x' } },
      { id: 'abort-city', name: 'pick_city', arguments: { prompt: 'Where?' } },
    ]);
    await runtime.executor.getHandle(agent, sessionId).then((handle) => handle?.abort('changed my mind'));
    expect(await runtime.stateStore.loadState(sessionId)).toMatchObject({ status: 'failed', failureReason: 'aborted' });

    llm.use(() => ({ type: 'text', text: 'fresh start' }));
    const retried = await runtime.executor.retry(agent, sessionId);
    expect(await retried.result()).toMatchObject({ status: 'completed', output: 'fresh start' });
    expect(unpairedToolCalls(llm.adapter.calls[0]!.messages)).toEqual([]);
    expect(unpairedToolCalls((await runtime.stateStore.getMessages(sessionId)).messages)).toEqual([]);
  });
});

describe('resume() with a message while calls are still open', () => {
  it('keeps the message when the resumed run parks again: it lands after the step results once answered', async () => {
    const sessionId = 'review-message-carry';
    const firstRunId = await parked(sessionId, [{ id: 'carry-city', name: 'pick_city', arguments: { prompt: 'Where?' } }]);
    // Nothing answered yet: the resumed run waits, then parks again.
    const second = await runtime.executor.resume(agent, sessionId, { mode: 'with_message', message: 'Use metric units.' });
    expect(second.runId).not.toBe(firstRunId);
    expect(await waitForRunStatus(runtime.stateStore, sessionId, second.runId, 'suspended_client_tool', WARM_MS + 5_000)).toBe('suspended_client_tool');

    await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId, toolCallId: 'carry-city', result: 'Oslo' });
    const third = await runtime.executor.resume(agent, sessionId);
    expect(await third.result()).toMatchObject({ status: 'completed', output: 'all done' });
    const { messages } = await runtime.stateStore.getMessages(sessionId);
    expect(messages.map((message) => (message.role === 'user' ? `user:${String(message.content)}` : message.role))).toEqual([
      'user:go',
      'assistant',
      'tool',
      'user:Use metric units.',
      'assistant',
    ]);
    expect(unpairedToolCalls(llm.adapter.calls.at(-1)!.messages)).toEqual([]);
    expect(llm.adapter.calls.at(-1)!.messages.at(-1)).toMatchObject({ role: 'user', content: 'Use metric units.' });
  });
});

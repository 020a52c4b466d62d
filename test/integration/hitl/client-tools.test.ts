import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentAlreadyRunningError, InvalidArgumentError, InvalidSubmissionError } from '../../../src/errors/index.js';
import { HookManager } from '../../../src/hooks/index.js';
import type { AgentResumedEvent, AgentSuspendedEvent } from '../../../src/hooks/types.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import type { MockLLMResponse } from '../../../src/llm/mock/mock-llm-response.js';
import type { LLMGenerateInput } from '../../../src/types/llm.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { agent, counts } from './client-tools-kit.js';

const WARM_MS = 1_500;
let script: (input: LLMGenerateInput, callIndex: number) => MockLLMResponse = () => ({ type: 'text', text: 'unset' });
const llm = new MockLLMAdapter((input, callIndex) => script(input, callIndex));
const suspended: AgentSuspendedEvent[] = [];
const resumed: AgentResumedEvent[] = [];
const hookManager = new HookManager({ hooks: [{ onAgentSuspended: (event) => void suspended.push(event), onAgentResumed: (event) => void resumed.push(event) }] });


/** First call: the given tool calls; every later call: answer with the last tool result's content. */
function scriptCalls(toolCalls: Array<{ id: string; name: string; arguments: Record<string, unknown> }>): void {
  script = (input, callIndex) => {
    if (callIndex === 0) return { type: 'tool_calls', toolCalls };
    const results = input.messages.filter((message) => message.role === 'tool');
    return { type: 'text', text: `done: ${JSON.stringify(results.map((message) => message.content))}` };
  };
  llm.reset();
}

let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('hitl_client', llm, { hookManager, hitlWarmWindowMs: WARM_MS, toolRetryPolicy: { maxAttempts: 1 } });
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('client-executed tools', () => {
  it('suspends warm, resolves result() early, and a submit wakes the same run in place', async () => {
    scriptCalls([{ id: 'city-1', name: 'pick_city', arguments: { prompt: 'Where?' } }]);
    const handle = await runtime.executor.execute(agent, 'plan a trip', { sessionId: 'warm-1' });
    const started = Date.now();
    const waiting = await handle.result();
    expect(Date.now() - started).toBeLessThan(WARM_MS);
    expect(waiting).toMatchObject({ status: 'suspended_client_tool', runId: handle.runId, suspended: { toolCallIds: ['city-1'] } });
    const state = await handle.getState();
    expect(state?.status).toBe('active');
    expect(state?.pendingClientToolCalls?.['city-1']).toMatchObject({ kind: 'client', toolName: 'pick_city', input: { prompt: 'Where?' } });

    expect(await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'warm-1', toolCallId: 'city-1', result: { city: 'Oslo' } })).toMatchObject({
      status: 'accepted',
    });
    const final = await (await runtime.executor.getHandle(agent, 'warm-1'))!.result();
    expect(final).toMatchObject({ status: 'completed', runId: handle.runId, output: 'done: [{"city":"Oslo"}]' });
    expect(resumed.find((event) => event.sessionId === 'warm-1')).toMatchObject({ runId: handle.runId, previousRunId: handle.runId });
    expect(suspended.find((event) => event.sessionId === 'warm-1')?.toolCallIds).toEqual(['city-1']);
    expect((await runtime.stateStore.listRuns('warm-1')).runs).toHaveLength(1);
    expect(await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'warm-1', toolCallId: 'city-1', result: 'late' })).toMatchObject({
      status: 'already_completed',
    });
  });

  it('accepts exactly one of 100 concurrent submits of one toolCallId', async () => {
    scriptCalls([{ id: 'city-2', name: 'pick_city', arguments: { prompt: 'Where?' } }]);
    const handle = await runtime.executor.execute(agent, 'race', { sessionId: 'race-submit' });
    expect((await handle.result()).status).toBe('suspended_client_tool');
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'race-submit', toolCallId: 'city-2', result: { index } }),
      ),
    );
    const accepted = responses.filter((response) => response.status === 'accepted');
    expect(accepted).toHaveLength(1);
    expect(responses.filter((response) => response.status === 'already_completed')).toHaveLength(99);
    const final = await (await runtime.executor.getHandle(agent, 'race-submit'))!.result();
    expect(final.status).toBe('completed');
    const toolMessages = (await runtime.stateStore.getMessages('race-submit')).messages.filter((message) => message.role === 'tool');
    expect(toolMessages).toHaveLength(1);
  });

  it('rejects malformed submissions with a typed error and changes nothing', async () => {
    scriptCalls([{ id: 'city-3', name: 'pick_city', arguments: { prompt: 'Where?' } }]);
    const handle = await runtime.executor.execute(agent, 'bad input', { sessionId: 'bad-submit' });
    await handle.result();
    const before = await runtime.stateStore.loadState('bad-submit');
    const bad: unknown[] = [
      { kind: 'client-tool-result', sessionId: 'bad-submit', toolCallId: 'city-3', error: 42 },
      { kind: 'nope', sessionId: 'bad-submit', toolCallId: 'city-3' },
      { kind: 'approval-response', sessionId: 'bad-submit', toolCallId: 'city-3', approvalId: 'city-3', approved: true },
    ];
    for (const submission of bad) {
      await expect(runtime.executor.submitToolResult(submission as never)).rejects.toSatisfy((error: unknown) => InvalidSubmissionError.isInstance(error));
    }
    for (const sessionId of ['', 'bad\u0000submit', 'x'.repeat(1025)]) {
      await expect(runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId, toolCallId: 'city-3' })).rejects.toSatisfy((error: unknown) =>
        InvalidArgumentError.isInstance(error),
      );
    }
    const after = await runtime.stateStore.loadState('bad-submit');
    expect(after?.version).toBe(before?.version);
    expect(after?.pendingClientToolCalls?.['city-3']?.submittedAt).toBeUndefined();
    expect(await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'bad-submit', toolCallId: 'nope' })).toMatchObject({
      status: 'unknown_tool_call',
    });
    await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'bad-submit', toolCallId: 'city-3', error: 'user cancelled' });
    const final = await (await runtime.executor.getHandle(agent, 'bad-submit'))!.result();
    expect(final.status).toBe('completed');
    const tool = (await runtime.stateStore.getMessages('bad-submit')).messages.find((message) => message.role === 'tool');
    expect(tool).toMatchObject({ isError: true, content: 'user cancelled' });
  });

  it('parks after the warm window; submit then resume continues in a new run, the server tool ran once', async () => {
    scriptCalls([
      { id: 'look-1', name: 'lookup', arguments: { q: 'hotels' } },
      { id: 'city-4', name: 'pick_city', arguments: { prompt: 'Where?' } },
    ]);
    const before = counts.serverRuns;
    const handle = await runtime.executor.execute(agent, 'mixed', { sessionId: 'park-1' });
    const status = await waitForRunStatus('park-1', handle.runId, 'suspended_client_tool', WARM_MS + 5_000);
    expect(status).toBe('suspended_client_tool');
    const parked = await (await runtime.executor.getHandle(agent, 'park-1'))!.result();
    expect(parked).toMatchObject({ status: 'suspended_client_tool', runId: handle.runId, suspended: { calls: [{ toolCallId: 'city-4', toolName: 'pick_city', kind: 'client' }] } });
    const messagesAtPark = (await runtime.stateStore.getMessages('park-1')).messages;
    expect(messagesAtPark.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    const busy: unknown = await runtime.executor.execute(agent, 'another question', { sessionId: 'park-1' }).catch((error: unknown) => error);
    expect(AgentAlreadyRunningError.isInstance(busy)).toBe(true);
    expect((await runtime.stateStore.getMessages('park-1')).messages).toHaveLength(3);

    expect(await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'park-1', toolCallId: 'city-4', result: 'Rome' })).toMatchObject({
      status: 'accepted',
    });
    const resumedHandle = await runtime.executor.resume(agent, 'park-1');
    expect(resumedHandle.runId).not.toBe(handle.runId);
    const final = await resumedHandle.result();
    expect(final.status).toBe('completed');
    expect(counts.serverRuns - before).toBe(1);
    expect(resumed.find((event) => event.sessionId === 'park-1')).toMatchObject({ runId: resumedHandle.runId, previousRunId: handle.runId });
    const messages = (await runtime.stateStore.getMessages('park-1')).messages;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);
    const runs = (await runtime.stateStore.listRuns('park-1')).runs;
    expect(runs.map((run) => run.status)).toEqual(['suspended_client_tool', 'completed']);
    expect((await runtime.stateStore.loadState('park-1'))?.pendingClientToolCalls ?? {}).toEqual({});
  });

  it('a message sent with resume() of a parked step lands after that step\'s tool results', async () => {
    scriptCalls([{ id: 'city-5', name: 'pick_city', arguments: { prompt: 'Where?' } }]);
    const handle = await runtime.executor.execute(agent, 'ask me', { sessionId: 'park-msg' });
    expect(await waitForRunStatus('park-msg', handle.runId, 'suspended_client_tool', WARM_MS + 5_000)).toBe('suspended_client_tool');
    await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'park-msg', toolCallId: 'city-5', result: 'Bergen' });
    const next = await runtime.executor.resume(agent, 'park-msg', { mode: 'with_message', message: 'Make it cheap.' });
    expect((await next.result()).status).toBe('completed');
    const messages = (await runtime.stateStore.getMessages('park-msg')).messages;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
    expect(messages[3]).toMatchObject({ role: 'user', content: 'Make it cheap.' });
    const lastCall = llm.calls.at(-1);
    expect(lastCall?.messages.slice(1).map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
  });

  it('from_checkpoint on a parked session rewinds to the last complete step, not the parked one', async () => {
    script = () => ({ type: 'text', text: 'first turn' });
    llm.reset();
    const first = await runtime.executor.execute(agent, 'hello', { sessionId: 'park-rewind' });
    expect((await first.result()).status).toBe('completed');
    scriptCalls([{ id: 'city-6', name: 'pick_city', arguments: { prompt: 'Where?' } }]);
    const second = await runtime.executor.execute(agent, 'ask me', { sessionId: 'park-rewind' });
    expect(await waitForRunStatus('park-rewind', second.runId, 'suspended_client_tool', WARM_MS + 5_000)).toBe('suspended_client_tool');
    script = () => ({ type: 'text', text: 'after rewind' });
    const rewound = await runtime.executor.resume(agent, 'park-rewind', { mode: 'from_checkpoint' });
    expect(await rewound.result()).toMatchObject({ status: 'completed', output: 'after rewind' });
    const messages = (await runtime.stateStore.getMessages('park-rewind')).messages;
    expect(messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'hello'],
      ['assistant', 'first turn'],
      ['assistant', 'after rewind'],
    ]);
    expect((await runtime.stateStore.loadState('park-rewind'))?.pendingClientToolCalls ?? {}).toEqual({});
  });

  it('expires a client tool deadline with a synthetic tool error', async () => {
    scriptCalls([{ id: 'quick-1', name: 'quick_pick', arguments: {} }]);
    const handle = await runtime.executor.execute(agent, 'fast', { sessionId: 'deadline-1' });
    const final = await waitForFinal(handle.runId, 'deadline-1');
    expect(final).toBe('completed');
    const tool = (await runtime.stateStore.getMessages('deadline-1')).messages.find((message) => message.role === 'tool');
    expect(tool).toMatchObject({ isError: true, toolCallId: 'quick-1' });
    expect(await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'deadline-1', toolCallId: 'quick-1', result: 'late' })).toMatchObject({
      status: 'already_completed',
    });
    const usage = await runtime.usageStore.listRecords('deadline-1');
    expect(usage.find((record) => record.name === 'quick_pick')).toMatchObject({ success: false });
  });
});

describe('approval gates', () => {
  it('approve runs the tool with the original input; deny records the tool error and skips execute', async () => {
    scriptCalls([{ id: 'tx-1', name: 'transfer', arguments: { amount: 500 } }]);
    const before = counts.transfers;
    const approvedHandle = await runtime.executor.execute(agent, 'pay', { sessionId: 'approve-1' });
    // An approval gate suspends with the reference's status; its call says it is an approval, as run_suspended does.
    expect(await approvedHandle.result()).toMatchObject({
      status: 'suspended_client_tool',
      suspended: { toolCallIds: ['tx-1'], calls: [{ toolCallId: 'tx-1', toolName: 'transfer', kind: 'approval', approvalId: 'tx-1' }] },
    });
    const pending = (await runtime.stateStore.loadState('approve-1'))?.pendingClientToolCalls?.['tx-1'];
    expect(pending).toMatchObject({ kind: 'approval', approvalId: 'tx-1' });
    await runtime.executor.submitToolResult({ kind: 'approval-response', sessionId: 'approve-1', toolCallId: 'tx-1', approvalId: 'tx-1', approved: true });
    expect((await (await runtime.executor.getHandle(agent, 'approve-1'))!.result()).status).toBe('completed');
    expect(counts.transfers - before).toBe(1);
    const approvedTool = (await runtime.stateStore.getMessages('approve-1')).messages.find((message) => message.role === 'tool');
    expect(approvedTool).toMatchObject({ content: { moved: 500 } });

    scriptCalls([{ id: 'tx-2', name: 'transfer', arguments: { amount: 900 } }]);
    const deniedHandle = await runtime.executor.execute(agent, 'pay more', { sessionId: 'deny-1' });
    await deniedHandle.result();
    await runtime.executor.submitToolResult({ kind: 'approval-response', sessionId: 'deny-1', toolCallId: 'tx-2', approvalId: 'tx-2', approved: false, reason: 'too much' });
    expect((await (await runtime.executor.getHandle(agent, 'deny-1'))!.result()).status).toBe('completed');
    expect(counts.transfers - before).toBe(1);
    const deniedTool = (await runtime.stateStore.getMessages('deny-1')).messages.find((message) => message.role === 'tool');
    expect(deniedTool).toMatchObject({ isError: true, content: 'Tool call was not approved by the user. Reason: too much' });
  });

  it('runs ungated calls directly and treats a throwing predicate as approval required', async () => {
    scriptCalls([{ id: 'tx-3', name: 'transfer', arguments: { amount: 5 } }]);
    const before = counts.transfers;
    const small = await runtime.executor.execute(agent, 'small', { sessionId: 'small-1' });
    expect((await small.result()).status).toBe('completed');
    expect(counts.transfers - before).toBe(1);

    scriptCalls([{ id: 'tx-4', name: 'transfer', arguments: { amount: -1 } }]);
    const throwing = await runtime.executor.execute(agent, 'weird', { sessionId: 'throw-1' });
    expect((await throwing.result()).status).toBe('suspended_client_tool');
    expect((await runtime.stateStore.loadState('throw-1'))?.pendingClientToolCalls?.['tx-4']?.kind).toBe('approval');
    await runtime.executor.submitToolResult({ kind: 'approval-response', sessionId: 'throw-1', toolCallId: 'tx-4', approvalId: 'tx-4', approved: false });
    expect((await (await runtime.executor.getHandle(agent, 'throw-1'))!.result()).status).toBe('completed');
  });
});

describe('interrupt and abort during a wait', () => {
  it('interrupt ends a waiting run within 250 ms; resume continues it', async () => {
    scriptCalls([{ id: 'city-9', name: 'pick_city', arguments: { prompt: 'Where?' } }]);
    const handle = await runtime.executor.execute(agent, 'stop me', { sessionId: 'interrupt-1' });
    await handle.result();
    const started = Date.now();
    await handle.interrupt('user stop');
    const status = await waitForRunStatus('interrupt-1', handle.runId, 'interrupted', 2_000);
    expect(status).toBe('interrupted');
    expect(Date.now() - started).toBeLessThan(250);
    expect((await runtime.stateStore.loadState('interrupt-1'))?.status).toBe('interrupted');
    expect(await handle.canResume()).toBe(true);
    await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'interrupt-1', toolCallId: 'city-9', result: 'Paris' });
    const next = await runtime.executor.resume(agent, 'interrupt-1');
    expect((await next.result()).status).toBe('completed');
  });

  it('abort cancels a waiting run within 250 ms; the session is not resumable', async () => {
    scriptCalls([{ id: 'city-10', name: 'pick_city', arguments: { prompt: 'Where?' } }]);
    const handle = await runtime.executor.execute(agent, 'kill me', { sessionId: 'abort-1' });
    await handle.result();
    const started = Date.now();
    await handle.abort('no longer needed');
    const status = await waitForRunStatus('abort-1', handle.runId, 'aborted', 2_000);
    expect(status).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(250);
    expect(await handle.canResume()).toBe(false);
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'aborted', completionReason: 'aborted' });
    expect(await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'abort-1', toolCallId: 'city-10', result: 'late' })).toMatchObject({
      status: 'already_completed',
    });
    expect((await runtime.stateStore.loadState('abort-1'))?.pendingClientToolCalls ?? {}).toEqual({});
  });
});

async function waitForRunStatus(sessionId: string, runId: string, wanted: string, timeoutMs: number): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await runtime.stateStore.getRun(sessionId, runId);
    if (run?.status === wanted || Date.now() > deadline) return run?.status;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function waitForFinal(runId: string, sessionId: string): Promise<string | undefined> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const run = await runtime.stateStore.getRun(sessionId, runId);
    if ((run?.status === 'completed' || run?.status === 'failed') || Date.now() > deadline) return run?.status;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

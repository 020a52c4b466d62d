import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSubAgentTool, defineAgent } from '../../../src/agent/index.js';
import { AgentAlreadyRunningError, DBOSWorkflowNotFoundError, SessionNotContinuableError } from '../../../src/errors/index.js';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import { readPersistentMarker, withPersistentMarker } from '../../../src/orchestration/persistent-session.js';
import { LOST_TURN_MESSAGE } from '../../../src/steps/persistent.step.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM, sleep } from '../executor/executor-test-kit.js';
import { chat, eventually, lastUserText, markerOf, userTexts, workflowEnd } from './persistent-kit.js';

const helper = defineAgent({ name: 'helper', systemPrompt: 'Help.', outputSchema: z.object({ answer: z.string() }), maxSteps: 2 });
const delegating = defineAgent({ name: 'delegating', systemPrompt: 'Delegate.', tools: [createSubAgentTool(helper, z.object({ text: z.string() }))], maxSteps: 3 });

const llm = scriptedLLM();
let runtime: TestRuntime;
/** HITL waits park after 200 ms. */
let parking: DBOSAgentExecutor;
beforeAll(async () => {
  runtime = await startTestRuntime('persistent_control', llm.adapter);
  parking = new DBOSAgentExecutor({ stateStore: runtime.stateStore, streamManager: runtime.streamManager, llmAdapter: llm.adapter, hitlWarmWindowMs: 200 });
});
afterAll(async () => {
  await runtime?.shutdown();
});

/** `nap <ms>` naps first; `ask` asks the user; anything else is echoed. */
const script = () =>
  llm.use((input) => {
    const text = lastUserText(input);
    const last = input.messages.at(-1);
    if (last?.role === 'tool') return { type: 'text', text: `after ${last.toolName}: ${JSON.stringify(last.content)}` };
    if (text.startsWith('nap ')) return { type: 'tool_calls', toolCalls: [{ name: 'nap', arguments: { ms: Number(text.slice(4)) } }] };
    if (text === 'ask') return { type: 'tool_calls', toolCalls: [{ id: `ask-${input.sessionId}`, name: 'ask_user', arguments: { question: 'ok?' } }] };
    return { type: 'text', text: `echo: ${text}` };
  });

describe('persistent sessions: run control, humans in the loop, sub-agents', () => {
  it('interrupt() cancels the current turn, the session keeps waiting; the next message and resume() work', async () => {
    script();
    const turn = await runtime.executor.execute(chat, 'nap 400', { sessionId: 'ctl-int', mode: 'persistent' });
    await eventually('the nap', async () => (await runtime.stateStore.getCurrentRun('ctl-int'))?.status === 'running');
    await sleep(100);
    await turn.interrupt('stop');
    expect(await turn.result()).toMatchObject({ status: 'interrupted', completionReason: 'interrupted' });
    expect((await DBOS.getWorkflowStatus('chat__ctl-int__persistent'))?.status).toBe('PENDING');
    expect(await runtime.stateStore.loadState('ctl-int')).toMatchObject({ status: 'interrupted' });

    const next = await runtime.executor.execute(chat, 'hello', { sessionId: 'ctl-int', mode: 'persistent' });
    expect(await next.result()).toMatchObject({ status: 'completed', output: 'echo: hello' });
    expect(next.workflowId).toBe('chat__ctl-int__persistent');

    const interrupted = await runtime.executor.execute(chat, 'nap 400', { sessionId: 'ctl-int', mode: 'persistent' });
    await sleep(150);
    await interrupted.interrupt();
    expect((await interrupted.result()).status).toBe('interrupted');
    const resumed = await runtime.executor.resume(chat, 'ctl-int');
    expect(await resumed.result()).toMatchObject({ status: 'completed' });
    expect((await runtime.stateStore.listRuns('ctl-int')).runs.map((run) => run.status)).toEqual(['interrupted', 'completed', 'interrupted', 'completed']);
  });

  it('abort() ends the workflow: the turn and queued messages end aborted; execute() refuses, retry() restarts the session', async () => {
    script();
    const turn = await runtime.executor.execute(chat, 'nap 3000', { sessionId: 'ctl-abort', mode: 'persistent' });
    const queued = await runtime.executor.execute(chat, 'queued', { sessionId: 'ctl-abort', mode: 'persistent' });
    await eventually('the nap', async () => (await runtime.stateStore.getCurrentRun('ctl-abort'))?.status === 'running');
    await turn.abort('enough');
    expect(await turn.result()).toMatchObject({ status: 'aborted' });
    expect(await queued.result()).toMatchObject({ status: 'aborted', runId: queued.runId });
    await eventually('the cancellation', async () => (await DBOS.getWorkflowStatus('chat__ctl-abort__persistent'))?.status === 'CANCELLED');
    expect(await markerOf(runtime.stateStore, 'ctl-abort')).toMatchObject({ phase: 'closed', endReason: 'aborted' });
    const refused = await runtime.executor.execute(chat, 'more', { sessionId: 'ctl-abort', mode: 'persistent' }).catch((error: unknown) => error);
    expect(SessionNotContinuableError.isInstance(refused)).toBe(true);

    const retried = await runtime.executor.retry(chat, 'ctl-abort');
    expect(retried.workflowId).toBe('chat__ctl-abort__persistent__restart-1');
    expect((await retried.result()).status).toBe('completed');
    const after = await runtime.executor.execute(chat, 'back', { sessionId: 'ctl-abort', mode: 'persistent' });
    expect(await after.result()).toMatchObject({ output: 'echo: back' });
  });

  it('a client tool inside a turn: warm answer continues in place; a parked turn refuses messages until resume(), then runs the deferred ones', async () => {
    script();
    const warm = await runtime.executor.execute(chat, 'ask', { sessionId: 'ctl-hitl', mode: 'persistent' });
    expect(await warm.result()).toMatchObject({ status: 'suspended_client_tool', suspended: { toolCallIds: ['ask-ctl-hitl'] } });
    await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'ctl-hitl', toolCallId: 'ask-ctl-hitl', result: { yes: true } });
    await eventually('the warm turn to end', async () => (await runtime.stateStore.getRun('ctl-hitl', warm.runId))?.status === 'completed');
    expect(await warm.result()).toMatchObject({ status: 'completed', output: 'after ask_user: {"yes":true}' });

    const parked = await parking.execute(chat, 'ask', { sessionId: 'ctl-park', mode: 'persistent' });
    const deferred = await parking.execute(chat, 'later', { sessionId: 'ctl-park', mode: 'persistent' });
    expect(await workflowEnd('chat__ctl-park__persistent')).toMatchObject({ endReason: 'suspended' });
    expect(await parked.result()).toMatchObject({ status: 'suspended_client_tool', suspended: { toolCallIds: ['ask-ctl-park'] } });
    const refused = await parking.execute(chat, 'now?', { sessionId: 'ctl-park', mode: 'persistent' }).catch((error: unknown) => error);
    expect(AgentAlreadyRunningError.isInstance(refused)).toBe(true);
    expect((await markerOf(runtime.stateStore, 'ctl-park'))?.deferred?.map((message) => message.runId)).toEqual([deferred.runId]);

    await parking.submitToolResult({ kind: 'client-tool-result', sessionId: 'ctl-park', toolCallId: 'ask-ctl-park', result: 'fine' });
    const resumed = await parking.resume(chat, 'ctl-park');
    expect(await resumed.result()).toMatchObject({ status: 'completed', output: 'after ask_user: "fine"' });
    expect(await deferred.result()).toMatchObject({ status: 'completed', output: 'echo: later' });
    expect(userTexts(llm.adapter.calls.at(-1)!)).toEqual(['ask', 'later']);
  });

  it('sub-agents work inside a turn', async () => {
    llm.use((input) => {
      if (input.agentType === 'helper') return { type: 'structured_output', output: { answer: 'forty-two' } };
      const last = input.messages.at(-1);
      if (last?.role === 'tool') return { type: 'text', text: `helper said ${JSON.stringify(last.content)}` };
      return { type: 'tool_calls', toolCalls: [{ id: `d-${input.messages.length}`, name: 'subagent__helper', arguments: { text: lastUserText(input) } }] };
    });
    const first = await runtime.executor.execute(delegating, 'q1', { sessionId: 'ctl-sub', mode: 'persistent' });
    expect(await first.result()).toMatchObject({ status: 'completed', output: 'helper said {"answer":"forty-two"}' });
    const second = await runtime.executor.execute(delegating, 'q2', { sessionId: 'ctl-sub', mode: 'persistent' });
    expect((await second.result()).status).toBe('completed');
    const refs = await runtime.stateStore.getSubSessionRefs('ctl-sub');
    expect(refs.map((ref) => [ref.mode, ref.status])).toEqual([
      ['ephemeral', 'completed'],
      ['ephemeral', 'completed'],
    ]);
  });

  it('a turn whose workflow DBOS lost: result() throws DBOSWorkflowNotFoundError, and its advice (execute again) recovers the session', async () => {
    script();
    await (await runtime.executor.execute(chat, 'first', { sessionId: 'ctl-lost', mode: 'persistent', idleTimeoutMs: 60_000 })).result();
    // Simulate a DBOS system database that lost the session's live workflow in the middle of a turn.
    const state = (await runtime.stateStore.loadState('ctl-lost'))!;
    const marker = readPersistentMarker(state.metadata)!;
    await runtime.stateStore.saveState('ctl-lost', { metadata: withPersistentMarker(state.metadata, { ...marker, workflowId: 'chat__ctl-lost__vanished', start: { ...marker.start!, workflowId: 'chat__ctl-lost__vanished', initialMessages: [] } }) });
    await runtime.stateStore.createRun('ctl-lost', { runId: 'run-lost', status: 'running', stepCount: 0, startSequence: 0, workflowId: 'chat__ctl-lost__vanished', startedAt: Date.now() });
    const lost = (await runtime.executor.getHandle(chat, 'ctl-lost'))!;
    const error = await lost.result().catch((caught: unknown) => caught);
    expect(DBOSWorkflowNotFoundError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('executor.execute()');

    const next = await runtime.executor.execute(chat, 'again', { sessionId: 'ctl-lost', mode: 'persistent' });
    expect(await next.result()).toMatchObject({ status: 'completed', output: 'echo: again' });
    expect(await lost.result()).toMatchObject({ status: 'failed', error: LOST_TURN_MESSAGE });
    expect(userTexts(llm.adapter.calls.at(-1)!)).toEqual(['first', 'again']);
  });
});

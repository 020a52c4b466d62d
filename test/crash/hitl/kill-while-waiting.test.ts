/**
 * SIGKILL while a run waits warm for a human (real processes, DBOS, Postgres, `@ai-sdk/openai` against the
 * parent's fake server). Worker A starts the run and is killed once the run blocks in its wait; recover
 * worker B (same executor id and application version, never calls execute) continues the same workflow; the
 * parent — a third process with its own DBOS executor id — answers. The run completes in B, in place (same
 * runId), and nothing that ran before the kill runs again.
 */
import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../../src/types/message.js';
import { useDrill } from '../support/drill.js';
import { expectCleanExit, outcomeOf } from '../support/drill-flow.js';
import { workflowRowOf } from '../support/durable-probes.js';
import { killAndClaim, startWaitingRun } from '../support/hitl-flow.js';
import { executionsOf } from '../support/hitl-probes.js';
import { outlineOf, readStreamWithResets } from '../support/stream-view.js';
import { describeConversation, storedMessages } from '../support/session-snapshot.js';
import { APPROVAL_CHECK_RECORD } from '../worker/hitl-agent.js';
import { CRASH_APPLICATION_VERSION } from '../worker/worker-config.js';
import { HITL_ANSWERS, HITL_CALLS, HITL_SCENARIOS } from './hitl-scenarios.js';

const KILL_CLIENT = 'kill-client';
const KILL_APPROVAL = 'kill-approval';

const env = useDrill('crash_hitl_kill', { controlPlane: true, sessions: [[KILL_CLIENT, HITL_SCENARIOS.mixedBatch], [KILL_APPROVAL, HITL_SCENARIOS.gatedTransfer]], setupTimeoutMs: 60_000 });

/** Role, call ids and content of each stored message: the whole conversation, comparable exactly. */
function transcript(messages: readonly StoredMessage[]): unknown[] {
  return messages.map((message) => {
    if (message.role === 'assistant') return { role: 'assistant', content: message.content, toolCalls: message.toolCalls?.map((call) => [call.id, call.name, call.arguments]) };
    if (message.role === 'tool') return { role: 'tool', toolCallId: message.toolCallId, content: message.content, isError: message.isError ?? false };
    return { role: message.role, content: message.content };
  });
}

describe('crash drill: SIGKILL while waiting for a human', () => {
  it('a client tool result submitted after the restart continues the recovered run; the batch’s server tool ran once', async () => {
    const { worker: starter, run } = await startWaitingRun(env, 'hitl-kill-client', KILL_CLIENT, [HITL_CALLS.pickCity]);
    expect(await executionsOf(env.pool, KILL_CLIENT)).toEqual({ [`lookup:${HITL_CALLS.lookup}`]: [starter.pid] });

    const recoverer = await killAndClaim(env, starter, 'hitl-kill-client', run);
    const submitted = await env.control.executor.submitToolResult({
      kind: 'client-tool-result',
      sessionId: KILL_CLIENT,
      toolCallId: HITL_CALLS.pickCity,
      result: { city: 'Oslo' },
    });
    expect(submitted.status).toBe('accepted');
    const { result } = await outcomeOf(recoverer, KILL_CLIENT);
    await expectCleanExit(recoverer);

    expect(recoverer.events.some((event) => event.event === 'started')).toBe(false);
    expect(result).toMatchObject({ sessionId: KILL_CLIENT, runId: run.runId, status: 'completed', completionReason: 'text_response', output: HITL_ANSWERS.trip, stepCount: 2 });
    // The lookup ran once, in the killed process; the LLM was asked once per step across both processes.
    expect(await executionsOf(env.pool, KILL_CLIENT)).toEqual({ [`lookup:${HITL_CALLS.lookup}`]: [starter.pid] });
    expect(env.llm.countsByStep(KILL_CLIENT)).toEqual([1, 1]);
    const messages = await storedMessages(env, KILL_CLIENT);
    expect(transcript(messages)).toEqual([
      { role: 'user', content: expect.stringContaining(`[session:${KILL_CLIENT}]`) as unknown },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          [HITL_CALLS.lookup, 'lookup', { key: 'a' }],
          [HITL_CALLS.pickCity, 'pick_city', { prompt: 'Where to?' }],
        ],
      },
      { role: 'tool', toolCallId: HITL_CALLS.lookup, content: { key: 'a', value: 'value-of-a' }, isError: false },
      { role: 'tool', toolCallId: HITL_CALLS.pickCity, content: { city: 'Oslo' }, isError: false },
      { role: 'assistant', content: HITL_ANSWERS.trip, toolCalls: undefined },
    ]);
    expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);
    // The client sees each call announced and answered once, though the announcing process died mid-wait.
    expect(outlineOf((await readStreamWithResets(env.streamManager, KILL_CLIENT, 10_000)).visible)).toEqual([
      `tool_start@1:${HITL_CALLS.lookup}`,
      `tool_end@1:${HITL_CALLS.lookup}`,
      `tool_start@1:${HITL_CALLS.pickCity}`,
      'run_suspended@1',
      `tool_end@1:${HITL_CALLS.pickCity}`,
      ...HITL_ANSWERS.trip.split(' ').map((word, index, words) => `text_delta@2:${word}${index < words.length - 1 ? ' ' : ''}`),
      'output@2',
    ]);

    // Same run, same workflow, finished by the recovering executor; nothing left pending; a resubmit is a no-op.
    expect((await env.stateStore.listRuns(KILL_CLIENT)).runs.map((record) => [record.runId, record.status])).toEqual([[run.runId, 'completed']]);
    expect(await workflowRowOf(env.pool, run.workflowId)).toMatchObject({ status: 'SUCCESS', executorId: 'hitl-kill-client', applicationVersion: CRASH_APPLICATION_VERSION });
    const state = await env.stateStore.loadState(KILL_CLIENT);
    expect(state?.pendingClientToolCalls ?? {}).toEqual({});
    expect(state?.completedClientToolCalls?.[HITL_CALLS.pickCity]).toBeTypeOf('number');
    expect((await env.control.executor.submitToolResult({ kind: 'client-tool-result', sessionId: KILL_CLIENT, toolCallId: HITL_CALLS.pickCity, result: 'late' })).status).toBe(
      'already_completed',
    );
  }, 90_000);

  it('an approval given after the restart runs the gated tool exactly once, in the recovering process', async () => {
    const { worker: starter, run } = await startWaitingRun(env, 'hitl-kill-approval', KILL_APPROVAL, [HITL_CALLS.transfer]);
    expect((await env.stateStore.loadState(KILL_APPROVAL))?.pendingClientToolCalls?.[HITL_CALLS.transfer]).toMatchObject({ kind: 'approval', approvalId: HITL_CALLS.transfer });
    // The predicate ran (once, checkpointed); the gated tool did not.
    expect(await executionsOf(env.pool, KILL_APPROVAL)).toEqual({ [`${APPROVAL_CHECK_RECORD}:${HITL_CALLS.transfer}`]: [starter.pid] });

    const recoverer = await killAndClaim(env, starter, 'hitl-kill-approval', run);
    const approved = await env.control.executor.submitToolResult({
      kind: 'approval-response',
      sessionId: KILL_APPROVAL,
      toolCallId: HITL_CALLS.transfer,
      approvalId: HITL_CALLS.transfer,
      approved: true,
    });
    expect(approved.status).toBe('accepted');
    const { result } = await outcomeOf(recoverer, KILL_APPROVAL);
    await expectCleanExit(recoverer);

    expect(result).toMatchObject({ runId: run.runId, status: 'completed', output: HITL_ANSWERS.transfer, stepCount: 2 });
    expect(await executionsOf(env.pool, KILL_APPROVAL)).toEqual({
      [`${APPROVAL_CHECK_RECORD}:${HITL_CALLS.transfer}`]: [starter.pid],
      [`transfer:${HITL_CALLS.transfer}`]: [recoverer.pid],
    });
    expect(env.llm.countsByStep(KILL_APPROVAL)).toEqual([1, 1]);
    const messages = await storedMessages(env, KILL_APPROVAL);
    expect(describeConversation(messages)).toEqual(['user', `assistant[${HITL_CALLS.transfer}]`, `tool(${HITL_CALLS.transfer})`, 'assistant']);
    expect(transcript(messages)[2]).toEqual({ role: 'tool', toolCallId: HITL_CALLS.transfer, content: { moved: 250 }, isError: false });
    expect((await env.stateStore.listRuns(KILL_APPROVAL)).runs).toHaveLength(1);
  }, 90_000);
});

/**
 * Replay test of the standard-mode agent workflow: run it to completion, then make DBOS re-execute it by
 * its id in another process (`DBOS.rewindWorkflow` past the last recorded step: same id, every checkpoint
 * kept) and show that no step ran twice: LLM requests, tool executions, DBOS step records, messages,
 * usage rows and stream chunks are unchanged, and the result is the same.
 */
import { describe, expect, it } from 'vitest';
import { standardWorkflowId } from '../../src/orchestration/ids.js';
import { CRASH_AGENT_NAME } from './worker/crash-agent.js';
import { useDrill } from './support/drill.js';
import { DRILL_SCENARIOS } from './support/drill-scenarios.js';
import { replayInPlace, runToCompletion } from './support/drill-flow.js';
import { stepRecordsOf, toolRunCounts, usageRowsOf, workflowRowOf } from './support/durable-probes.js';
import { describeConversation, storedMessages } from './support/session-snapshot.js';

const REPLAY_SESSION = 'replay-session';

const env = useDrill('crash_replay', { sessions: [[REPLAY_SESSION, DRILL_SCENARIOS.replay]], setupTimeoutMs: 60_000 });

/** Everything a re-executed step would change. */
async function durableCounters(workflowId: string) {
  const info = await env.streamManager.getInfo(REPLAY_SESSION);
  return {
    llmRequests: env.llm.countsByStep(REPLAY_SESSION),
    toolRuns: await toolRunCounts(env.pool, REPLAY_SESSION),
    steps: (await stepRecordsOf(env.pool, workflowId)).map(({ functionId, name, output, error }) => ({ functionId, name, output, error })),
    messages: await storedMessages(env, REPLAY_SESSION),
    usageRows: await usageRowsOf(env.pool, REPLAY_SESSION),
    usage: await env.usageStore.getSessionUsage(REPLAY_SESSION),
    checkpoints: await env.stateStore.listCheckpoints(REPLAY_SESSION),
    state: await env.stateStore.loadState(REPLAY_SESSION),
    stream: { lastSequence: info?.lastSequence, chunkCount: info?.chunkCount, status: info?.status },
  };
}

describe('replay: re-executing a completed agent workflow by id', () => {
  it('runs no step twice and returns the same result', async () => {
    const first = (await runToCompletion(env, 'crash-replay-first', [REPLAY_SESSION])).get(REPLAY_SESSION);
    if (first === undefined) throw new Error('the first run produced no result');
    expect(first).toMatchObject({ status: 'completed', completionReason: 'finish_tool', output: { summary: 'a and b', facts: ['a', 'b'] }, stepCount: 2 });
    const workflowId = standardWorkflowId(CRASH_AGENT_NAME, REPLAY_SESSION, first.runId);
    const before = await durableCounters(workflowId);
    expect(before.llmRequests).toEqual([1, 1]);
    expect(before.toolRuns).toEqual({ call_1_lookup_a: 1, call_1_lookup_b: 1, call_2_report: 1 });
    expect(describeConversation(before.messages)).toEqual([
      'user',
      'assistant[call_1_lookup_a,call_1_lookup_b]',
      'tool(call_1_lookup_a)',
      'tool(call_1_lookup_b)',
      'assistant[call_2_report]',
      'tool(call_2_report)',
    ]);
    const stepNames = before.steps.map((step) => step.name);
    expect(stepNames.filter((name) => name === 'CallLLMStep')).toHaveLength(2);
    expect(stepNames.filter((name) => name.startsWith('ExecuteToolStep'))).toHaveLength(3);
    expect((await workflowRowOf(env.pool, workflowId))?.status).toBe('SUCCESS');

    const replayRequestedAt = Date.now();
    const { result } = await replayInPlace(env, 'crash-replay-second', REPLAY_SESSION);

    // DBOS really re-executed the workflow body, in the replay process, under the same id …
    const row = await workflowRowOf(env.pool, workflowId);
    expect(row).toMatchObject({ status: 'SUCCESS', executorId: 'crash-replay-second' });
    expect(row?.startedAt ?? 0).toBeGreaterThanOrEqual(replayRequestedAt);
    // … every step answered from its checkpoint: nothing ran, nothing was written twice.
    expect(result).toEqual(first);
    expect(await durableCounters(workflowId)).toEqual(before);
  }, 120_000);
});

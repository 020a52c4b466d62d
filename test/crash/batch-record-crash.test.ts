/**
 * SIGKILL drill at the public journal's batch record (real processes, DBOS and Postgres): a tool call that is its
 * agent step's only work commits its chunks, its usage and the agent step's commit in one transaction before DBOS
 * records the tool step; the worker is killed between the two. Recovered on either journal, the tool step (it has no
 * DBOS row) finds its agent step committed and returns that: the tool does not run again, and the stream, the messages
 * and the usage rows hold each once (one tool_start, one tool_end, one tool message, one checkpoint of the step), the
 * model not asked again for step 1.
 */
import { describe, expect, it } from 'vitest';
import { useDrill } from './support/drill.js';
import { scenarioByStep } from './support/drill-scenarios.js';
import { killAndRecover, startPausedRun } from './support/drill-flow.js';
import { checkpointExists, stepRecordsOf, toolRunCounts, usageRowsOf } from './support/durable-probes.js';
import { describeConversation, storedMessages } from './support/session-snapshot.js';
import { readStreamWithResets } from './support/stream-view.js';

const env = useDrill('crash_batch');
const ANSWER = 'Looked it up.';
const lookupOnce = scenarioByStep([{ type: 'tool_calls', toolCalls: [{ id: 'call_1_lookup_a', name: 'lookup', arguments: { key: 'a' } }] }, { type: 'text', text: ANSWER }]);

describe.each(['public', 'fused'] as const)('crash drill: killed after the public journal’s batch record committed, recovered on the %s journal', (recovery) => {
  it('re-runs the tool step, which finds its commit and neither runs the tool again nor writes anything twice', async () => {
    const sessionId = `batch-${recovery}`;
    env.llm.register(sessionId, lookupOnce, { crash: true });
    const doomed = await startPausedRun(env, sessionId, { point: 'batch_committed', toolCallId: 'ExecuteToolStep:lookup' }, { journal: 'public' });
    // The agent step is committed (messages, checkpoint), DBOS has no row for the tool step yet.
    expect(await checkpointExists(env.pool, sessionId, `${doomed.runId}:1`), 'at the kill').toBe(true);
    expect(describeConversation(await storedMessages(env, sessionId)), 'at the kill').toEqual(['user', 'assistant[call_1_lookup_a]', 'tool(call_1_lookup_a)']);
    expect((await stepRecordsOf(env.pool, doomed.workflowId)).map((step) => step.name), 'at the kill').toEqual(['BeginRunStep', 'CallLLMStep']);

    const { result } = await killAndRecover(env, doomed, { journal: recovery });
    expect(result).toMatchObject({ status: 'completed', output: ANSWER, stepCount: 2 });
    expect(await toolRunCounts(env.pool, sessionId)).toEqual({ call_1_lookup_a: 1 }); // its commit stands: not run again
    expect(env.llm.countOf(sessionId, 1)).toBe(1);
    const messages = await storedMessages(env, sessionId);
    expect(describeConversation(messages)).toEqual(['user', 'assistant[call_1_lookup_a]', 'tool(call_1_lookup_a)', 'assistant']);
    expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);
    const chunks = (await readStreamWithResets(env.streamManager, sessionId, 10_000)).raw;
    expect(chunks.filter((chunk) => chunk.type === 'tool_start'), 'one tool_start').toHaveLength(1);
    expect(chunks.filter((chunk) => chunk.type === 'tool_end'), 'one tool_end').toHaveLength(1);
    expect(await usageRowsOf(env.pool, sessionId)).toEqual(['llm:fake-model:1', 'tool:lookup:1', 'llm:fake-model:2']);
    expect((await stepRecordsOf(env.pool, doomed.workflowId)).map((step) => step.name)).toEqual([
      'BeginRunStep',
      'CallLLMStep',
      'ExecuteToolStep:lookup',
      'CallLLMStep',
      'FinishRunStep',
    ]);
  }, 120_000);
});

import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStream } from '../../support/read-stream.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { childScript, planner } from '../sub-agents/sub-agent-kit.js';
import { scriptedLLM } from './executor-test-kit.js';

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('executor_retention', llm.adapter);
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('retention: pruneFinishedSessions', () => {
  it('prunes stream chunks and DBOS records of finished trees, keeps history, skips live sessions, and the session goes on', async () => {
    llm.use((input) => {
      if (input.agentType !== 'planner') return childScript(input);
      if (input.sessionId === 'keep-live') return { type: 'text', text: 'slow', delayMs: 2_000 };
      return input.messages.some((message) => message.role === 'tool')
        ? { type: 'text', text: 'done' }
        : { type: 'tool_calls', toolCalls: [{ id: 'r-1', name: 'subagent__summarizer', arguments: { text: 'x', delayMs: 0 } }] };
    });
    const finished = await runtime.executor.execute(planner, 'go', { sessionId: 'prune-1' });
    expect((await finished.result()).status).toBe('completed');
    const live = await runtime.executor.execute(planner, 'go', { sessionId: 'keep-live' });
    const childWorkflow = (await runtime.stateStore.getCurrentRun('prune-1-sub-r-1'))?.workflowId;
    const before = await runtime.streamManager.getInfo('prune-1');
    const messagesBefore = (await runtime.stateStore.getMessages('prune-1')).messages;
    expect(before?.chunkCount).toBeGreaterThan(5);

    const pruned = await runtime.executor.pruneFinishedSessions({ olderThanMs: 0 });
    expect(pruned.sessions).toBe(1);
    expect(pruned.chunksDeleted).toBe(before?.chunkCount);
    expect(pruned.workflowsDeleted).toBe(1);
    expect(await DBOS.getWorkflowStatus(finished.workflowId)).toBeNull();
    expect(childWorkflow).toBeDefined();
    expect(await DBOS.getWorkflowStatus(childWorkflow!)).toBeNull(); // the sub-agent's child workflow went with it
    expect(await runtime.streamManager.getInfo('prune-1')).toMatchObject({ chunkCount: 0, lastSequence: before?.lastSequence, status: 'ended' });
    expect((await runtime.stateStore.getMessages('prune-1')).messages).toEqual(messagesBefore);
    expect(await runtime.stateStore.listCheckpoints('prune-1')).not.toHaveLength(0);
    expect(await runtime.stateStore.loadState('prune-1-sub-r-1')).toMatchObject({ status: 'completed' });
    // A second pass finds nothing new; the live session was never touched.
    expect(await runtime.executor.pruneFinishedSessions({ olderThanMs: 0 })).toEqual({ sessions: 0, chunksDeleted: 0, workflowsDeleted: 0 });
    const liveState = await runtime.stateStore.loadState('keep-live');
    expect(liveState?.status).toBe('active');
    expect(liveState?.metadata?.['helix.prunedAt']).toBeUndefined();

    // A pruned session still takes a new turn; its stream continues after the pruned sequences.
    llm.use(() => ({ type: 'text', text: 'next turn' }));
    const next = await runtime.executor.execute(planner, 'again', { sessionId: 'prune-1' });
    expect(await next.result()).toMatchObject({ status: 'completed', output: 'next turn' });
    const chunks = await readStream(runtime.streamManager, 'prune-1');
    expect(chunks[0]?.sequence).toBeGreaterThan(before?.lastSequence ?? 0);
    await expect(runtime.executor.pruneFinishedSessions({ olderThanMs: -1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await live.abort('done with the test');
  });
});

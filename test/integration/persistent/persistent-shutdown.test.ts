/**
 * `executor.close()` before `DBOS.shutdown()` ends the warm persistent sessions this process runs with completion
 * reason `shutdown` (a turn in progress finishes first): nothing is left pending for recovery, and the next message
 * — here through another executor — restarts the session from the store with its whole history.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DBOSAgentExecutor } from '../../../src/executor/dbos-agent-executor.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';
import { chat, eventually, lastUserText, markerOf, userTexts, workflowEnd } from './persistent-kit.js';

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('persistent_shutdown', llm.adapter, { persistentWarmWindowMs: 60_000 });
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('executor.close() and warm persistent sessions', () => {
  it('lets the turn in progress finish, ends the workflow with shutdown, and the next message restarts it with history', async () => {
    llm.use((input) => ({ type: 'text', text: `echo: ${lastUserText(input)}`, ...(lastUserText(input) === 'slow' ? { delayMs: 800 } : {}) }));
    const first = await runtime.executor.execute(chat, 'one', { sessionId: 'shut-1', mode: 'persistent' });
    expect(await first.result()).toMatchObject({ status: 'completed' });
    const second = await runtime.executor.execute(chat, 'slow', { sessionId: 'shut-1', mode: 'persistent' });
    await eventually('the second turn runs', async () => (await runtime.stateStore.getRun('shut-1', second.runId))?.status === 'running');

    await runtime.executor.close({ timeoutMs: 15_000 });
    // close() returned after the workflow ended: the turn in progress had finished.
    expect((await runtime.stateStore.getRun('shut-1', second.runId))?.status).toBe('completed');
    expect((await DBOS.getWorkflowStatus('chat__shut-1__persistent'))?.status).toBe('SUCCESS');
    expect(await workflowEnd('chat__shut-1__persistent')).toMatchObject({ endReason: 'shutdown', completionReason: 'shutdown', turns: 2 });
    expect(await markerOf(runtime.stateStore, 'shut-1')).toMatchObject({ phase: 'closed', endReason: 'shutdown' });

    const next = new DBOSAgentExecutor({ stateStore: runtime.stateStore, streamManager: runtime.streamManager, llmAdapter: llm.adapter, usageStore: runtime.usageStore });
    const third = await next.execute(chat, 'three', { sessionId: 'shut-1', mode: 'persistent' });
    expect(third.workflowId).toBe('chat__shut-1__persistent__restart-1');
    expect(await third.result()).toMatchObject({ status: 'completed', output: 'echo: three' });
    expect(userTexts(llm.adapter.calls.at(-1)!)).toEqual(['one', 'slow', 'three']);
  });
});

/**
 * An operator cancels a persistent session's workflow mid-turn (`dbos workflow cancel`): the turn's handle answers
 * `aborted` at once (its run recorded aborted), and the next message restarts the session from the store with its
 * history.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';
import { chat, lastUserText, userTexts } from './persistent-kit.js';

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('persistent_dbos_cancel', llm.adapter, { persistentWarmWindowMs: 60_000 });
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('an operator cancels a persistent session workflow through DBOS', () => {
  it("mid-turn: the turn's handle answers aborted within seconds; the next message restarts the session", async () => {
    let slow = true;
    llm.use((input) => {
      if (slow) {
        slow = false;
        return { type: 'text', text: 'never finished', delayMs: 5_000 };
      }
      return { type: 'text', text: `echo: ${lastUserText(input)}` };
    });
    const first = await runtime.executor.execute(chat, 'one', { sessionId: 'op-persistent', mode: 'persistent' });
    await expect.poll(() => llm.adapter.calls.length, { timeout: 10_000 }).toBe(1);
    const started = Date.now();
    await DBOS.cancelWorkflow(first.workflowId);
    const aborted = await first.result();
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(aborted).toMatchObject({ status: 'aborted', completionReason: 'aborted' });
    expect((await runtime.stateStore.getRun('op-persistent', first.runId))?.status).toBe('aborted');

    const second = await runtime.executor.execute(chat, 'two', { sessionId: 'op-persistent', mode: 'persistent' });
    expect(await second.result()).toMatchObject({ status: 'completed', output: 'echo: two' });
    expect(userTexts(llm.adapter.calls.at(-1)!)).toEqual(['one', 'two']);
  }, 30_000);
});

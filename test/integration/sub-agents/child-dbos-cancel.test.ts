/**
 * An operator cancels a sub-agent's own DBOS workflow (`dbos workflow cancel <child id>`), not the tree: the child
 * reads aborted at once, its parent's ref terminated, and the parent — woken instead of waiting out its 10-minute
 * recv — gets the termination as the delegated call's error and completes its turn.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';
import { childScript, planner, toolResultsOf } from './sub-agent-kit.js';

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('child_dbos_cancel', llm.adapter, { hitlWarmWindowMs: 30_000 });
});
afterAll(async () => {
  await runtime?.shutdown();
});

async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('an operator cancels a sub-agent workflow through DBOS', () => {
  it('the child reads aborted, the parent is woken, gets the termination as the call error and completes', async () => {
    llm.use((input) => {
      if (input.agentType === 'summarizer' && input.step === 1) return { type: 'text', text: 'never finished', delayMs: 5_000 };
      if (input.agentType !== 'planner') return childScript(input);
      if (input.messages.every((message) => message.role !== 'tool')) {
        return { type: 'tool_calls', toolCalls: [{ id: 'op-1', name: 'subagent__summarizer', arguments: { text: 'later', delayMs: 0 } }] };
      }
      return { type: 'text', text: `got ${JSON.stringify(toolResultsOf(input).map((result) => result.content))}` };
    });
    const handle = await runtime.executor.execute(planner, 'go', { sessionId: 'op-cancel' });
    await until(() => llm.adapter.calls.some((call) => call.agentType === 'summarizer'), 'the child LLM call');
    const child = await runtime.stateStore.getCurrentRun('op-cancel-sub-op-1');
    expect(child?.status).toBe('running');

    const started = Date.now();
    await DBOS.cancelWorkflow(child!.workflowId!);
    const result = await handle.result();
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(result.status).toBe('completed');
    expect(String(result.output)).toContain('got [');
    expect(String(result.output)).not.toContain('never finished');
    expect(String(result.output)).toContain('terminated');
    expect((await runtime.stateStore.getRun('op-cancel-sub-op-1', child!.runId))?.status).toBe('aborted');
    expect(await runtime.stateStore.loadState('op-cancel-sub-op-1')).toMatchObject({ status: 'failed', failureReason: 'aborted' });
    expect((await runtime.stateStore.getSubSessionRefs('op-cancel'))[0]?.status).toBe('terminated');
    expect(await runtime.stateStore.loadState('op-cancel')).toMatchObject({ status: 'completed' });
  }, 30_000);
});

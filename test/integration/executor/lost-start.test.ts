import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import { AgentAlreadyRunningError } from '../../../src/errors/index.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';

const agent = defineAgent({ name: 'lost_start_agent', systemPrompt: 'x', maxSteps: 2 });
const llm = new MockLLMAdapter(() => ({ type: 'text', text: 'answered' }));

let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('lost_start', llm);
});
afterAll(async () => {
  await runtime?.shutdown();
});

/** Pretend the session was last written a minute ago (a start whose process died long ago). */
async function age(sessionId: string): Promise<void> {
  const client = new pg.Client({ connectionString: runtime.database.url });
  await client.connect();
  try {
    await client.query('UPDATE __agents_sessions SET updated_at = updated_at - 60000 WHERE session_id = $1', [sessionId]);
  } finally {
    await client.end();
  }
}

describe('a start lost between taking the session and recording its run', () => {
  it('a brand-new session left active with no run is dropped and started again', async () => {
    await runtime.stateStore.createSession('lost-new', { agentType: agent.name, status: 'active', mode: 'standard', streamId: 'lost-new' });
    await age('lost-new');
    const handle = await runtime.executor.execute(agent, 'hello', { sessionId: 'lost-new' });
    expect(await handle.result()).toMatchObject({ status: 'completed', output: 'answered' });
    expect((await runtime.stateStore.listRuns('lost-new')).runs).toHaveLength(1);
    expect((await runtime.stateStore.getMessages('lost-new')).messages.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('a continuation swapped to active with no new run gets its completed status back and continues', async () => {
    const first = await runtime.executor.execute(agent, 'first', { sessionId: 'lost-turn' });
    expect((await first.result()).status).toBe('completed');
    const swapped = await runtime.stateStore.compareAndSetStatus('lost-turn', ['completed'], 'active');
    expect(swapped.ok).toBe(true);
    await age('lost-turn');
    const second = await runtime.executor.execute(agent, 'second', { sessionId: 'lost-turn' });
    expect(second.runId).not.toBe(first.runId);
    expect((await second.result()).status).toBe('completed');
    expect((await runtime.stateStore.listRuns('lost-turn')).runs.map((run) => run.status)).toEqual(['completed', 'completed']);
  });

  it('leaves a recently taken session alone (its starter may still record the run)', async () => {
    const first = await runtime.executor.execute(agent, 'first', { sessionId: 'fresh-swap' });
    await first.result();
    await runtime.stateStore.compareAndSetStatus('fresh-swap', ['completed'], 'active');
    // It waits for the taker's run (never hands back the ended one) and, when none appears, says the session is taken.
    await expect(runtime.executor.execute(agent, 'second', { sessionId: 'fresh-swap' })).rejects.toSatisfy((error: unknown) => AgentAlreadyRunningError.isInstance(error));
    expect((await runtime.stateStore.loadState('fresh-swap'))?.status).toBe('active');
    expect((await runtime.stateStore.listRuns('fresh-swap')).runs.map((run) => run.runId)).toEqual([first.runId]);
  });
});

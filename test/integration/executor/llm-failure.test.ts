import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import { SessionNotContinuableError } from '../../../src/errors/index.js';
import type { AgentFailEvent } from '../../../src/hooks/types.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, scriptedLLM } from './executor-test-kit.js';

const failures: AgentFailEvent[] = [];
let completions = 0;
const agent = defineAgent({
  name: 'doomed_agent',
  systemPrompt: 'Answer.',
  hooks: {
    onAgentFail: (event) => void failures.push(event),
    onAgentComplete: () => void (completions += 1),
  },
});

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('executor_llm_failure', llm.adapter);
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('a non-retryable LLM error', () => {
  it('fails the run, the session and the stream, fires onAgentFail, and blocks continuation', async () => {
    llm.use((_input, callIndex) =>
      callIndex === 0 ? { type: 'error', message: 'The model rejected the request.', retryable: false, statusCode: 400 } : { type: 'text', text: 'never' },
    );
    const handle = await runtime.executor.execute(agent, 'please fail', { sessionId: 'llm-fail' });
    const chunks = await collectChunks(handle);
    const result = await handle.result();

    expect(llm.adapter.callCount).toBe(1);
    expect(result).toMatchObject({ sessionId: 'llm-fail', runId: handle.runId, status: 'failed', completionReason: 'failed' });
    expect(result.error).toContain('LLM_CALL_FAILED');
    expect(result.output).toBeUndefined();

    expect(failures).toEqual([expect.objectContaining({ sessionId: 'llm-fail', runId: handle.runId, completionReason: 'failed', error: result.error })]);
    expect(completions).toBe(0);

    expect(await handle.getState()).toMatchObject({ status: 'failed', error: result.error });
    expect(await runtime.stateStore.getRun('llm-fail', handle.runId)).toMatchObject({ status: 'failed', completionReason: 'failed' });
    expect(chunks.at(-1)).toMatchObject({ type: 'error', error: result.error, recoverable: false, agentId: 'llm-fail' });
    const { messages } = await runtime.stateStore.getMessages('llm-fail');
    expect(messages.map((message) => message.role)).toEqual(['user']);

    await expect(runtime.executor.execute(agent, 'try again', { sessionId: 'llm-fail' })).rejects.toSatisfy((error) => SessionNotContinuableError.isInstance(error));
    await expect(handle.send('try again')).rejects.toSatisfy((error) => SessionNotContinuableError.isInstance(error));
    expect(llm.adapter.callCount).toBe(1);
    expect((await runtime.stateStore.listRuns('llm-fail')).runs).toHaveLength(1);
    expect(await handle.getState()).toMatchObject({ status: 'failed' });
  });
});

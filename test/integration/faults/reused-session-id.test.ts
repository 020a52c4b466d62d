/**
 * A session id used again after its session was deleted: the new session's run must not trip over the stream the
 * old session ended (STREAM_CLOSED on its first write), and that stream must show only the new run's chunks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { readStream } from '../../support/read-stream.js';
import { textOf } from '../executor/executor-test-kit.js';

let reply = 'unset';
const llm = new MockLLMAdapter(() => ({ type: 'text', text: reply }));
const agent = defineAgent({ name: 'reused_id_agent', systemPrompt: 'Answer.' });

let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('reused_session_id', llm);
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('a session id reused after deleteSession (Postgres streams)', () => {
  it('runs the new session to completion; its stream holds only the new run', async () => {
    const sessionId = 'reused-after-delete';
    reply = 'first answer';
    expect(await (await runtime.executor.execute(agent, 'first', { sessionId })).result()).toMatchObject({ status: 'completed' });
    expect(textOf(await readStream(runtime.streamManager, sessionId))).toBe('first answer');
    await runtime.stateStore.deleteSession(sessionId);

    reply = 'second answer';
    const handle = await runtime.executor.execute(agent, 'second', { sessionId });
    expect(await handle.result()).toMatchObject({ status: 'completed', output: 'second answer' });
    const chunks = await readStream(runtime.streamManager, sessionId);
    expect(textOf(chunks)).toBe('second answer');
    expect(chunks.filter((chunk) => chunk.type === 'output')).toHaveLength(1);
    expect(await runtime.streamManager.getInfo(sessionId)).toMatchObject({ status: 'ended', output: 'second answer' });
  });
});

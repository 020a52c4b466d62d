import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, scriptedLLM } from '../executor/executor-test-kit.js';
import { childScript, planner } from './sub-agent-kit.js';

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('long_root_id', llm.adapter, { toolRetryPolicy: { maxAttempts: 1 } });
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('derived ids under a 1 KB root session id', () => {
  it('a sub-agent with its own sub-agent (two levels of -sub- ids) runs, streams and continues', async () => {
    const root = `${'ü'.repeat(500)}${'r'.repeat(24)}`; // 1,024 UTF-8 bytes
    expect(Buffer.byteLength(root)).toBe(1024);
    const callId = `n-${'c'.repeat(120)}`;
    llm.use((input) =>
      input.agentType !== 'planner'
        ? childScript(input)
        : input.messages.at(-1)?.role === 'tool'
          ? { type: 'text', text: 'nested done' }
          : { type: 'tool_calls', toolCalls: [{ id: `${callId}-${input.messages.length}`, name: 'subagent__manager', arguments: { text: 'deep' } }] },
    );
    const handle = await runtime.executor.execute(planner, 'go', { sessionId: root });
    const chunks = await collectChunks(handle);
    expect(await handle.result()).toMatchObject({ status: 'completed', output: 'nested done' });
    const child = `${root}-sub-${callId}-2`;
    const grandchild = `${child}-sub-m-sub`;
    expect((await runtime.stateStore.loadState(child))?.status).toBe('completed');
    expect((await runtime.stateStore.loadState(grandchild))?.output).toEqual({ summary: 'DEEP-INNER' });
    expect(chunks.some((chunk) => chunk.agentId === grandchild && chunk.type === 'tool_end')).toBe(true);
    const result = (await runtime.stateStore.getMessages(root)).messages.find((message) => message.role === 'tool');
    expect(result).toMatchObject({ content: { report: 'managed DEEP-INNER' } });

    // A continuation of the 1 KB session derives new child ids again.
    const next = await runtime.executor.execute(planner, 'again', { sessionId: root });
    expect(await next.result()).toMatchObject({ status: 'completed', output: 'nested done' });
    const refs = await runtime.stateStore.getSubSessionRefs(root);
    expect(refs).toHaveLength(2);
    for (const ref of refs) {
      expect(ref.subSessionId.startsWith(`${root}-sub-${callId}`)).toBe(true);
      expect((await runtime.stateStore.loadState(`${ref.subSessionId}-sub-m-sub`))?.status).toBe('completed');
    }
  });
});

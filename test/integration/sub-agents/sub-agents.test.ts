import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, scriptedLLM } from '../executor/executor-test-kit.js';
import { childHookEvents, childScript, chunksOf, planner, spans, toolResultsOf } from './sub-agent-kit.js';

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('sub_agents', llm.adapter, { toolRetryPolicy: { maxAttempts: 1 } });
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('ephemeral sub-agents as DBOS child workflows', () => {
  it('runs two sub-agents and a tool of one step concurrently, streams them and commits results in call order', async () => {
    llm.use((input) => {
      if (input.agentType !== 'planner') return childScript(input);
      if (input.step === 1) {
        return {
          type: 'tool_calls',
          toolCalls: [
            { id: 'c-a', name: 'subagent__summarizer', arguments: { text: 'alpha', delayMs: 300 } },
            { id: 'c-t', name: 'wait_for', arguments: { label: 'parent-tool', delayMs: 300 } },
            { id: 'c-b', name: 'subagent__summarizer', arguments: { text: 'beta', delayMs: 300 } },
          ],
        };
      }
      return { type: 'text', text: `done: ${JSON.stringify(toolResultsOf(input).map((result) => result.content))}` };
    });
    const handle = await runtime.executor.execute(planner, 'plan', { sessionId: 'sa-1' });
    const chunks = await collectChunks(handle);
    const result = await handle.result();
    expect(result.status).toBe('completed');

    const alpha = spans.get('child-alpha')!;
    const beta = spans.get('child-beta')!;
    const tool = spans.get('parent-tool')!;
    expect(alpha.start).toBeLessThan(beta.end);
    expect(beta.start).toBeLessThan(alpha.end);
    expect(tool.start).toBeLessThan(alpha.end);

    const { messages } = await runtime.stateStore.getMessages('sa-1');
    const results = messages.filter((message) => message.role === 'tool');
    expect(results.map((message) => [message.toolCallId, message.toolName])).toEqual([
      ['c-a', 'subagent__summarizer'],
      ['c-t', 'wait_for'],
      ['c-b', 'subagent__summarizer'],
    ]);
    expect(results[0]).toMatchObject({ content: { summary: 'ALPHA' } });
    expect(results[2]).toMatchObject({ content: { summary: 'BETA' } });

    for (const [callId, text] of [['c-a', 'alpha'], ['c-b', 'beta']] as const) {
      const childId = `sa-1-sub-${callId}`;
      const start = chunks.findIndex((chunk) => chunk.type === 'subagent_start' && chunk.callId === callId);
      const end = chunks.findIndex((chunk) => chunk.type === 'subagent_end' && chunk.callId === callId);
      expect(chunks[start]).toMatchObject({ type: 'subagent_start', subAgentType: 'summarizer', subSessionId: childId, callId, agentId: 'sa-1', agentType: 'planner' });
      expect(chunks[end]).toMatchObject({ type: 'subagent_end', subAgentType: 'summarizer', subSessionId: childId, callId, result: { summary: text.toUpperCase() }, agentId: 'sa-1' });
      const own = chunks.map((chunk, index) => ({ chunk, index })).filter(({ chunk }) => chunk.agentId === childId);
      expect(own.length).toBeGreaterThan(2);
      expect(own.every(({ index }) => index > start && index < end)).toBe(true);
      expect(chunks.filter((chunk) => chunk.type === 'subagent_end' && chunk.callId === callId)).toHaveLength(1);
      const child = await runtime.stateStore.loadState(childId);
      expect(child).toMatchObject({ status: 'completed', parentSessionId: 'sa-1', rootSessionId: 'sa-1', agentType: 'summarizer', output: { summary: text.toUpperCase() } });
    }
    expect(chunks.at(-1)).toMatchObject({ type: 'output', agentId: 'sa-1' });
    const refs = (await runtime.stateStore.getSubSessionRefs('sa-1')).sort((left, right) => left.subSessionId.localeCompare(right.subSessionId));
    expect(refs.map((ref) => [ref.subSessionId, ref.mode, ref.status, ref.parentToolCallId])).toEqual([
      ['sa-1-sub-c-a', 'ephemeral', 'completed', 'c-a'],
      ['sa-1-sub-c-b', 'ephemeral', 'completed', 'c-b'],
    ]);
    for (const ref of refs) expect(ref.completedAt).toBeGreaterThanOrEqual(ref.startedAt);
    // The children's own lifecycle hooks fired (and the shared stream stayed open for the parent).
    for (const child of ['sa-1-sub-c-a', 'sa-1-sub-c-b']) {
      expect(childHookEvents.filter(([, sessionId]) => sessionId === child).map(([event]) => event)).toEqual(['start', 'complete']);
    }
  });

  it('gives a failing child, a dispatch failure and a child over maxSteps to the LLM as tool errors while a sibling completes', async () => {
    llm.use((input) => {
      if (input.agentType === 'summarizer' && firstTextOf(input).includes('broken')) return { type: 'error', message: 'model exploded' };
      if (input.agentType !== 'planner') return childScript(input);
      if (input.step === 1) {
        return {
          type: 'tool_calls',
          toolCalls: [
            { id: 'f-broken', name: 'subagent__summarizer', arguments: { text: 'broken', delayMs: 0 } },
            { id: 'f-picky', name: 'subagent__picky', arguments: { text: 'not a number' } },
            { id: 'f-loop', name: 'subagent__looper', arguments: { topic: 'x' } },
            { id: 'f-ok', name: 'subagent__summarizer', arguments: { text: 'fine', delayMs: 0 } },
          ],
        };
      }
      return { type: 'text', text: 'handled' };
    });
    const handle = await runtime.executor.execute(planner, 'plan', { sessionId: 'sa-2' });
    const chunks = await collectChunks(handle);
    expect((await handle.result()).status).toBe('completed');
    const secondCall = llm.adapter.calls.find((call) => call.agentType === 'planner' && call.step === 2)!;
    const results = toolResultsOf(secondCall);
    expect(results.map((result) => [result.toolCallId, result.isError === true])).toEqual([
      ['f-broken', true],
      ['f-picky', true],
      ['f-loop', true],
      ['f-ok', false],
    ]);
    expect(String(results[0]?.content)).toContain('Sub-agent failed');
    expect(childHookEvents.filter(([, sessionId]) => sessionId === 'sa-2-sub-f-broken').map(([event]) => event)).toEqual(['start', 'fail']);
    expect(String(results[1]?.content)).toContain('could not be started');
    expect(String(results[2]?.content)).toContain('Max steps exceeded (2)');
    expect(results[3]?.content).toEqual({ summary: 'FINE' });
    expect(chunks).toContainEqual(expect.objectContaining({ type: 'tool_end', toolCallId: 'f-picky', error: expect.stringContaining('could not be started') }));
    expect(chunks.some((chunk) => chunk.type === 'subagent_start' && chunk.callId === 'f-picky')).toBe(false);
  });

  it('runs a sub-agent to the end even when a finishWith tool of the same step succeeds; completion waits for it', async () => {
    llm.use((input) =>
      input.agentType !== 'planner'
        ? childScript(input)
        : {
            type: 'tool_calls',
            toolCalls: [
              { id: 'fw-sub', name: 'subagent__summarizer', arguments: { text: 'late', delayMs: 300 } },
              { id: 'fw-report', name: 'report', arguments: { title: 'Done' } },
            ],
          },
    );
    const handle = await runtime.executor.execute(planner, 'finish', { sessionId: 'sa-fw' });
    expect(await handle.result()).toMatchObject({ status: 'completed', completionReason: 'finish_tool', output: { title: 'Done' } });
    expect(spans.get('report')!.start).toBeGreaterThanOrEqual(spans.get('child-late')!.end);
    expect(await runtime.stateStore.loadState('sa-fw-sub-fw-sub')).toMatchObject({ status: 'completed', output: { summary: 'LATE' } });
    const results = (await runtime.stateStore.getMessages('sa-fw')).messages.filter((message) => message.role === 'tool');
    expect(results.map((message) => message.toolCallId)).toEqual(['fw-sub', 'fw-report']);
  });

  it('runs 20 sub-agents of one step, each exactly once', async () => {
    const calls = Array.from({ length: 20 }, (_, index) => ({ id: `m-${index}`, name: 'subagent__summarizer', arguments: { text: `t${index}`, delayMs: 0 } }));
    llm.use((input) => (input.agentType !== 'planner' ? childScript(input) : input.step === 1 ? { type: 'tool_calls', toolCalls: calls } : { type: 'text', text: 'all done' }));
    const handle = await runtime.executor.execute(planner, 'fan out', { sessionId: 'sa-3' });
    const chunks = await collectChunks(handle);
    expect((await handle.result()).status).toBe('completed');
    const childCalls = llm.adapter.calls.filter((call) => call.agentType === 'summarizer');
    expect(childCalls).toHaveLength(40); // two LLM steps per child
    for (let index = 0; index < 20; index += 1) {
      const childId = `sa-3-sub-m-${index}`;
      expect(childCalls.filter((call) => call.sessionId === childId)).toHaveLength(2);
      expect(chunks.filter((chunk) => chunk.type === 'subagent_end' && chunk.subSessionId === childId)).toHaveLength(1);
      expect(chunksOf(chunks, childId).filter((chunk) => chunk.type === 'tool_end'), JSON.stringify(chunksOf(chunks, childId).map((chunk) => [chunk.type, chunk.sequence]))).toHaveLength(1);
    }
    const results = (await runtime.stateStore.getMessages('sa-3')).messages.filter((message) => message.role === 'tool');
    expect(results.map((message) => message.content)).toEqual(calls.map((_, index) => ({ summary: `T${index}` })));
  });

  it('a reader that reconnects mid-child sees every chunk once, in order', async () => {
    llm.use((input) => {
      if (input.agentType !== 'planner') return childScript(input);
      if (input.step === 1) {
        return {
          type: 'tool_calls',
          toolCalls: [
            { id: 'r-a', name: 'subagent__summarizer', arguments: { text: 'one', delayMs: 150 } },
            { id: 'r-b', name: 'subagent__summarizer', arguments: { text: 'two', delayMs: 250 } },
          ],
        };
      }
      return { type: 'text', text: 'reconnected fine' };
    });
    const handle = await runtime.executor.execute(planner, 'stream', { sessionId: 'sa-5' });
    const seen: Array<{ sequence: number; type: string; agentId: string }> = [];
    const first = await runtime.streamManager.createReader('sa-5', 0);
    for await (const chunk of first) {
      seen.push({ sequence: chunk.sequence ?? -1, type: chunk.type, agentId: chunk.agentId });
      if (chunk.agentId === 'sa-5-sub-r-a' && chunk.type === 'tool_start') break; // mid-child
    }
    await first.close();
    const second = await runtime.streamManager.createReader('sa-5', seen.at(-1)!.sequence);
    for await (const chunk of second) {
      seen.push({ sequence: chunk.sequence ?? -1, type: chunk.type, agentId: chunk.agentId });
      if (chunk.agentId === 'sa-5' && chunk.type === 'output') break;
    }
    await second.close();
    expect((await handle.result()).status).toBe('completed');
    const sequences = seen.map((chunk) => chunk.sequence);
    expect(sequences).toEqual([...sequences].sort((left, right) => left - right));
    expect(new Set(sequences).size).toBe(sequences.length);
    expect(sequences).toEqual(Array.from({ length: sequences.length }, (_, index) => sequences[0]! + index)); // no gaps
    expect(seen.filter((chunk) => chunk.type === 'subagent_start' && chunk.agentId === 'sa-5')).toHaveLength(2);
    expect(seen.filter((chunk) => chunk.type === 'subagent_end' && chunk.agentId === 'sa-5')).toHaveLength(2);
    for (const child of ['sa-5-sub-r-a', 'sa-5-sub-r-b']) {
      expect(seen.filter((chunk) => chunk.agentId === child && chunk.type === 'tool_end')).toHaveLength(1);
    }
  });

  it('nests two levels: a child with a sub-agent of its own', async () => {
    llm.use((input) => (input.agentType !== 'planner' ? childScript(input) : input.step === 1 ? { type: 'tool_calls', toolCalls: [{ id: 'n-1', name: 'subagent__manager', arguments: { text: 'deep' } }] } : { type: 'text', text: 'nested done' }));
    const handle = await runtime.executor.execute(planner, 'nest', { sessionId: 'sa-4' });
    const chunks = await collectChunks(handle);
    expect((await handle.result()).status).toBe('completed');
    const results = (await runtime.stateStore.getMessages('sa-4')).messages.filter((message) => message.role === 'tool');
    expect(results[0]?.content).toEqual({ report: 'managed DEEP-INNER' });
    const grandchild = await runtime.stateStore.loadState('sa-4-sub-n-1-sub-m-sub');
    expect(grandchild).toMatchObject({ status: 'completed', parentSessionId: 'sa-4-sub-n-1', rootSessionId: 'sa-4' });
    // Usage is recorded under each session; one call sums the tree from the root.
    for (const sessionId of ['sa-4', 'sa-4-sub-n-1', 'sa-4-sub-n-1-sub-m-sub']) {
      expect((await runtime.usageStore.getSessionUsage(sessionId)).llmCalls).toBe(2);
    }
    const tree = await runtime.usageStore.getTreeUsage('sa-4');
    expect(tree.llmCalls).toBe(6);
    expect(tree.toolCalls).toBe(1); // the grandchild's wait_for
    const ends = chunks.filter((chunk) => chunk.type === 'subagent_end').map((chunk) => [chunk.agentId, chunk.subSessionId]);
    expect(ends).toEqual([
      ['sa-4-sub-n-1', 'sa-4-sub-n-1-sub-m-sub'],
      ['sa-4', 'sa-4-sub-n-1'],
    ]);
  });
});

function firstTextOf(input: { messages: Array<{ role: string; content?: unknown }> }): string {
  const message = input.messages.find((candidate) => candidate.role === 'user');
  return typeof message?.content === 'string' ? message.content : '';
}

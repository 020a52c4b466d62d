import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import {
  AgentAlreadyRunningError,
  InvalidArgumentError,
  NotResumableError,
  SessionAgentMismatchError,
  SessionNotContinuableError,
} from '../../../src/errors/index.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { createGate, type Gate } from '../run-control/run-control-kit.js';
import { scriptedLLM } from './executor-test-kit.js';

let gate: Gate = createGate();
const slow = defineTool({
  name: 'slow_lookup',
  description: 'Slow',
  parameters: z.object({ q: z.string() }),
  execute: async ({ q }) => {
    await gate.pass();
    return { found: q };
  },
});
const agent = defineAgent({ name: 'entry_agent', systemPrompt: 'x', tools: [slow], maxSteps: 4 });
const other = defineAgent({ name: 'other_agent', systemPrompt: 'x', maxSteps: 2 });

const llm = scriptedLLM();
/** First call of each run looks something up (held by the gate), the next answers. */
function lookupThenAnswer(): void {
  llm.use((input) => {
    const last = input.messages.at(-1);
    return last?.role === 'tool' ? { type: 'text', text: 'answered' } : { type: 'tool_calls', toolCalls: [{ id: `call-${input.messages.length}`, name: 'slow_lookup', arguments: { q: 'a' } }] };
  });
}

let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('entry_points', llm.adapter);
});
afterAll(async () => {
  await runtime?.shutdown();
});

async function sessionRowCount(): Promise<number> {
  const client = new pg.Client({ connectionString: runtime.database.url });
  await client.connect();
  try {
    return Number((await client.query('SELECT count(*)::int AS n FROM __agents_sessions')).rows[0].n);
  } finally {
    await client.end();
  }
}

describe('a second execute() while a turn runs', () => {
  it('with a different message throws AgentAlreadyRunningError; with the same message returns the running handle', async () => {
    gate = createGate();
    lookupThenAnswer();
    const first = await runtime.executor.execute(agent, 'look it up', { sessionId: 'busy-1' });
    await gate.entered;
    await expect(runtime.executor.execute(agent, 'something else', { sessionId: 'busy-1' })).rejects.toSatisfy(
      (error: unknown) => AgentAlreadyRunningError.isInstance(error) && error.message.includes('running'),
    );
    await expect(runtime.executor.execute(agent, { message: 'something else' }, { sessionId: 'busy-1' })).rejects.toSatisfy((error: unknown) =>
      AgentAlreadyRunningError.isInstance(error),
    );
    const again = await runtime.executor.execute(agent, 'look it up', { sessionId: 'busy-1' });
    expect(again.runId).toBe(first.runId);
    gate.open();
    expect(await first.result()).toMatchObject({ status: 'completed', output: 'answered' });
    // The dropped message was never appended.
    const users = (await runtime.stateStore.getMessages('busy-1')).messages.filter((message) => message.role === 'user');
    expect(users.map((message) => (message as { content: string }).content)).toEqual(['look it up']);
  });
});

describe('session ids', () => {
  it('an id of 1,024 UTF-8 bytes runs, resumes nothing wrongly and reconnects', async () => {
    gate = createGate();
    gate.open();
    lookupThenAnswer();
    const id = 'é'.repeat(511) + 'ab'; // 1,024 bytes
    expect(Buffer.byteLength(id)).toBe(1024);
    const handle = await runtime.executor.execute(agent, 'long id', { sessionId: id });
    expect(await handle.result()).toMatchObject({ status: 'completed', output: 'answered' });
    const again = await runtime.executor.getHandle(agent, id);
    expect(again?.runId).toBe(handle.runId);
    const next = await runtime.executor.execute(agent, 'second turn', { sessionId: id });
    expect((await next.result()).status).toBe('completed');
  });

  const badIds: Array<[string, string]> = [
    ['empty', ''],
    ['1,025 bytes', 'x'.repeat(1023) + 'é'],
    ['NUL', 'secret\u0000id'],
    ['newline', 'secret\nid'],
    ['DEL', 'secret\u007fid'],
    ['lone surrogate', 'secret\ud800id'],
  ];
  it.each(badIds)('%s: InvalidArgumentError from every entry point, nothing written, id never echoed', async (_label, id) => {
    const before = await sessionRowCount();
    const calls: Array<() => Promise<unknown>> = [
      () => runtime.executor.execute(agent, 'hi', { sessionId: id }),
      () => runtime.executor.resume(agent, id),
      () => runtime.executor.retry(agent, id),
      () => runtime.executor.getHandle(agent, id),
      () => runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: id, toolCallId: 'c1', result: 1 }),
      () => runtime.executor.execute(agent, 'hi', { sessionId: 'branch-target', branch: { fromSessionId: id } }),
    ];
    for (const call of calls) {
      const error = await call().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      const text = `${(error as Error).message} ${JSON.stringify((error as InvalidArgumentError).data)}`;
      if (id.length > 0) expect(text).not.toContain('secret');
      if (id.length > 100) expect(text).not.toContain('xxxxxxxx');
    }
    expect(await sessionRowCount()).toBe(before);
  });
});

describe('plain refusals', () => {
  it('another agent type on a session says so plainly, from every entry point', async () => {
    gate = createGate();
    gate.open();
    lookupThenAnswer();
    await (await runtime.executor.execute(agent, 'mine', { sessionId: 'owned-1' })).result();
    for (const call of [
      () => runtime.executor.execute(other, 'hi', { sessionId: 'owned-1' }),
      () => runtime.executor.resume(other, 'owned-1'),
      () => runtime.executor.retry(other, 'owned-1'),
      () => runtime.executor.getHandle(other, 'owned-1'),
    ]) {
      await expect(call()).rejects.toSatisfy(
        (error: unknown) =>
          SessionAgentMismatchError.isInstance(error) && error.message.includes('"entry_agent", not "other_agent"') && error.sessionAgentType === 'entry_agent',
      );
    }
  });

  it('an aborted session reads `aborted` from every entry point', async () => {
    gate = createGate();
    lookupThenAnswer();
    const handle = await runtime.executor.execute(agent, 'to abort', { sessionId: 'aborted-1' });
    await gate.entered;
    await handle.abort('stop');
    gate.open();
    expect((await handle.result()).status).toBe('aborted');
    await expect(runtime.executor.execute(agent, 'again', { sessionId: 'aborted-1' })).rejects.toSatisfy(
      (error: unknown) => SessionNotContinuableError.isInstance(error) && error.status === 'aborted' && error.message.includes('retry()'),
    );
    await expect(runtime.executor.resume(agent, 'aborted-1')).rejects.toSatisfy((error: unknown) => NotResumableError.isInstance(error) && error.status === 'aborted');
    expect((await (await runtime.executor.getHandle(agent, 'aborted-1'))!.result()).status).toBe('aborted');
    expect(await (await runtime.executor.getHandle(agent, 'aborted-1'))!.canResume()).toBe(false);
    // retry() is the way out: a fresh run completes.
    const retried = await runtime.executor.retry(agent, 'aborted-1');
    expect((await retried.result()).status).toBe('completed');
  });
});

/**
 * Which turn a companion call reads, on real DBOS + Postgres: `waitForResult` after `sendMessage` waits for the turn
 * that message starts (queued behind a running turn, or on an idle child), never the previous turn's output; a
 * terminated companion reads terminated (ref, listChildren, getChildStatus) and its session reads aborted the way
 * every aborted session does (`failed` with `failureReason: 'aborted'`, the spec's SessionStatus has no other).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM, sleep } from '../executor/executor-test-kit.js';
import { boss, call, calls, parentScript, toolResultOf } from './companion-kit.js';

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('companion_turns', llm.adapter, { persistentWarmWindowMs: 5_000 });
});
afterAll(async () => {
  await runtime?.shutdown();
});

async function runParent(sessionId: string, message: string): Promise<unknown> {
  const handle = await runtime.executor.execute(boss, message, { sessionId });
  return handle.result();
}

async function resultOf(sessionId: string, toolCallId: string): Promise<unknown> {
  return (await toolResultOf(runtime.stateStore, sessionId, toolCallId)).content;
}

describe('companion turns', () => {
  it('waitForResult after sendMessage to a running child waits for the queued turn, not the running one', async () => {
    llm.use(
      parentScript([
        call('a1', 'spawnAgent', { agentType: 'watcher', name: 'w', message: 'slow one' }),
        call('a2', 'sendMessage', { name: 'w', message: 'x' }),
        call('a3', 'waitForResult', { name: 'w' }),
        { type: 'text', text: 'done' },
      ]),
    );
    expect(await runParent('ct-queued', 'go')).toMatchObject({ status: 'completed', output: 'done' });
    expect(await resultOf('ct-queued', 'a2')).toEqual({ name: 'w', sessionId: 'ct-queued-agent-w', status: 'running' });
    expect(await resultOf('ct-queued', 'a3')).toEqual({ name: 'w', status: 'completed', output: { seen: 'x' } });
    const { runs } = await runtime.stateStore.listRuns('ct-queued-agent-w');
    expect(runs.map((run) => [run.status, (run.metadata as { output?: unknown }).output])).toEqual([
      ['completed', { seen: 'slow one' }],
      ['completed', { seen: 'x' }],
    ]);
  });

  it('waitForResult after sendMessage to an idle child waits for the new turn (non-blocking and blocking)', async () => {
    llm.use(
      parentScript([
        calls(['b1', 'spawnAgent', { agentType: 'watcher', name: 'w', message: 'first' }], ['b2', 'spawnAgent', { agentType: 'researcher', name: 'r', message: 'q1' }]),
        call('b3', 'waitForResult', { name: 'w' }),
        calls(['b4', 'sendMessage', { name: 'w', message: 'second' }], ['b5', 'waitForResult', { name: 'w' }]),
        calls(['b6', 'sendMessage', { name: 'r', message: 'q2' }], ['b7', 'waitForResult', { name: 'r' }]),
        { type: 'text', text: 'done' },
      ]),
    );
    expect(await runParent('ct-idle', 'go')).toMatchObject({ status: 'completed', output: 'done' });
    expect(await resultOf('ct-idle', 'b2')).toEqual({ name: 'r', status: 'completed', output: { answer: 're: q1' } });
    expect(await resultOf('ct-idle', 'b3')).toEqual({ name: 'w', status: 'completed', output: { seen: 'first' } });
    expect(await resultOf('ct-idle', 'b5')).toEqual({ name: 'w', status: 'completed', output: { seen: 'second' } });
    expect(await resultOf('ct-idle', 'b7')).toEqual({ name: 'r', status: 'completed', output: { answer: 're: q2' } });
  });

  it('a terminated companion reads terminated: its ref, listChildren, getChildStatus; its session is aborted', async () => {
    llm.use(
      parentScript([
        calls(['t1', 'spawnAgent', { agentType: 'watcher', name: 'busy', message: 'stall' }], ['t2', 'spawnAgent', { agentType: 'researcher', name: 'idle', message: 'q' }]),
        calls(['t3', 'terminateChild', { name: 'busy' }], ['t4', 'terminateChild', { name: 'idle', reason: 'enough' }]),
        calls(['t5', 'listChildren', {}], ['t6', 'getChildStatus', { name: 'busy' }], ['t7', 'getChildStatus', { name: 'idle' }]),
        { type: 'text', text: 'done' },
      ]),
    );
    expect(await runParent('ct-term', 'go')).toMatchObject({ status: 'completed', output: 'done' });
    expect(await resultOf('ct-term', 't5')).toEqual({
      children: [
        { name: 'busy', agentType: 'watcher', status: 'terminated', sessionId: 'ct-term-agent-busy' },
        { name: 'idle', agentType: 'researcher', status: 'terminated', sessionId: 'ct-term-agent-idle' },
      ],
    });
    expect(await resultOf('ct-term', 't6')).toMatchObject({ name: 'busy', status: 'terminated' });
    expect(await resultOf('ct-term', 't7')).toMatchObject({ name: 'idle', status: 'terminated' });
    for (const name of ['busy', 'idle']) {
      const childSessionId = `ct-term-agent-${name}`;
      expect((await runtime.stateStore.getSubSessionRefs('ct-term')).find((ref) => ref.name === name)).toMatchObject({ status: 'terminated' });
      expect(await runtime.stateStore.loadState(childSessionId)).toMatchObject({ status: 'failed', failureReason: 'aborted' });
    }
    // Nothing the cancelled workflows still had in flight moves them back.
    await sleep(500);
    expect((await runtime.stateStore.getSubSessionRefs('ct-term')).map((ref) => ref.status)).toEqual(['terminated', 'terminated']);
  });
});

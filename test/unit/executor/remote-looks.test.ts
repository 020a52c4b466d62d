import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemoryStateStore } from '../../../src/store/index.js';
import { REMOTE_LOOK_MS, remoteRunChange } from '../../../src/executor/remote-looks.js';
import { signalRunChanged } from '../../../src/steps/run-signals.js';
import type { SessionStateStore } from '../../../src/store/state-store.js';
import { pendingCall } from '../../../src/testing/contracts/state-store-contract/context.js';

async function runningRun(store: InMemoryStateStore, sessionId: string, waiting: boolean): Promise<{ sessionId: string; runId: string }> {
  await store.createSession(sessionId, { agentType: 'chat' });
  await store.createRun(sessionId, { runId: `${sessionId}-run`, status: 'running', stepCount: 0, startSequence: 0, startedAt: 1 });
  if (waiting) await store.saveState(sessionId, { pendingClientToolCalls: { c1: pendingCall('c1') } });
  return { sessionId, runId: `${sessionId}-run` };
}

/** Whether `promise` settled within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);
}

const stops: AbortController[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop.abort();
  vi.restoreAllMocks();
});

function watch(store: SessionStateStore, run: { sessionId: string; runId: string }, soon = true): Promise<unknown> {
  const stop = new AbortController();
  stops.push(stop);
  return remoteRunChange(store, run, [run.runId], soon, stop.signal);
}

describe('remoteRunChange (the handles of runs elsewhere)', () => {
  it('asks the store once for every run first watched in a turn, and wakes only the runs it names', async () => {
    const store = new InMemoryStateStore();
    const waiting = await runningRun(store, 'waiting', true);
    const busy = await runningRun(store, 'busy', false);
    const other = await runningRun(store, 'other', false);
    const asked = vi.spyOn(store, 'runsWaitingOrAborted');
    const ownReads = vi.spyOn(store, 'loadState');
    const [woken, quiet, alsoQuiet] = [watch(store, waiting), watch(store, busy), watch(store, other)];
    expect(await settlesWithin(woken, 200)).toBe(true);
    expect(await settlesWithin(Promise.race([quiet, alsoQuiet]), 50)).toBe(false);
    expect(asked).toHaveBeenCalledTimes(1);
    expect(asked.mock.calls[0]?.[0].map((run) => run.runId)).toEqual([waiting.runId, busy.runId, other.runId]);
    expect(ownReads).not.toHaveBeenCalled();
  });

  it('checks the watched runs again every second: an abort recorded later wakes its run', async () => {
    const store = new InMemoryStateStore();
    const run = await runningRun(store, 'later', false);
    const woken = watch(store, run);
    expect(await settlesWithin(woken, 100)).toBe(false);
    await store.updateRunStatus(run.sessionId, run.runId, 'aborted');
    expect(await settlesWithin(woken, REMOTE_LOOK_MS + 500)).toBe(true);
  });

  it('a wait that is not the first joins the periodic check only (no read of its own on the next turn)', async () => {
    const store = new InMemoryStateStore();
    const run = await runningRun(store, 'again', true);
    const woken = watch(store, run, false);
    expect(await settlesWithin(woken, 200)).toBe(false);
    expect(await settlesWithin(woken, REMOTE_LOOK_MS + 500)).toBe(true);
  });

  it("wakes on this process's signal of the run, and every run when the store cannot say", async () => {
    const store = new InMemoryStateStore();
    const run = await runningRun(store, 'signalled', false);
    const signalled = watch(store, run, false);
    signalRunChanged(run.runId);
    expect(await settlesWithin(signalled, 100)).toBe(true);
    const failing = new InMemoryStateStore();
    const busy = await runningRun(failing, 'busy', false);
    vi.spyOn(failing, 'runsWaitingOrAborted').mockRejectedValue(new Error('down'));
    expect(await settlesWithin(watch(failing, busy), 200)).toBe(true);
    const without = new InMemoryStateStore();
    const plain = await runningRun(without, 'plain', false);
    Object.defineProperty(without, 'runsWaitingOrAborted', { value: undefined });
    expect(await settlesWithin(watch(without, plain), 200)).toBe(true);
  });

  it('resolves at once for a stop already aborted, and when the stop aborts', async () => {
    const store = new InMemoryStateStore();
    const run = await runningRun(store, 'stopped', false);
    const stop = new AbortController();
    const waiting = remoteRunChange(store, run, [run.runId], true, stop.signal);
    stop.abort();
    expect(await settlesWithin(waiting, 50)).toBe(true);
    expect(await remoteRunChange(store, run, [run.runId], true, stop.signal)).toBeUndefined();
  });
});

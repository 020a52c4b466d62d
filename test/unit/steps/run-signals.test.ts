import { describe, expect, it } from 'vitest';
import { sessionSignal, signalRunChanged, waitForRunChange, watchRunChange } from '../../../src/steps/run-signals.js';

describe('what a signal says', () => {
  const cases: Array<[string, (key: string) => void, boolean, 'changed' | 'ended' | undefined]> = [
    ['a change', (key) => signalRunChanged(key), false, 'changed'],
    ['the run ended', (key) => signalRunChanged(key, 'ended'), true, 'ended'],
    ['a change, then the end: the watch heard the first only', (key) => (signalRunChanged(key), signalRunChanged(key, 'ended')), false, 'changed'],
    ['nothing: the wait times out', () => undefined, false, undefined],
  ];
  it.each(cases)('%s: watch ended %j, wait resolves %j', async (_name, signal, ended, heard) => {
    const key = `run-say-${ended}-${heard}`;
    const watch = watchRunChange([key]);
    const waited = waitForRunChange(key, 20);
    signal(key);
    expect(watch.ended).toBe(ended);
    expect(await waited).toBe(heard);
  });

  it('resolves a stopped wait with nothing', async () => {
    const stop = new AbortController();
    const waited = waitForRunChange('run-say-stopped', 5_000, stop.signal);
    stop.abort();
    expect(await waited).toBeUndefined();
  });
});

describe('watchRunChange', () => {
  const cases: Array<[string, string[], boolean]> = [
    ['no signal', [], false],
    ['its run signalled', ['run-w1'], true],
    ['its session signalled', [sessionSignal('s-w1')], true],
    ['another run signalled', ['run-other'], false],
    ['another session signalled', [sessionSignal('s-other')], false],
  ];
  it.each(cases)('%s: changed %j', (_name, signals, expected) => {
    const watch = watchRunChange(['run-w1', sessionSignal('s-w1')]);
    for (const key of signals) signalRunChanged(key);
    expect(watch.changed).toBe(expected);
    watch.release();
  });

  it('hears nothing after release(), and leaves the other waiters of its keys listening', async () => {
    const watch = watchRunChange(['run-w2']);
    const other = watchRunChange(['run-w2']);
    watch.release();
    watch.release();
    const woken = waitForRunChange('run-w2', 5_000);
    signalRunChanged('run-w2');
    await woken;
    expect(watch.changed).toBe(false);
    expect(other.changed).toBe(true);
  });

  it('stops listening at its first signal: a second one finds it gone', () => {
    const watch = watchRunChange(['run-w3', 'run-w4']);
    signalRunChanged('run-w3');
    signalRunChanged('run-w4');
    expect(watch.changed).toBe(true);
  });
});

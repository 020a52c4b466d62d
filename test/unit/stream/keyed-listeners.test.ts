import { describe, expect, it } from 'vitest';
import { KeyedListeners } from '../../../src/stream/keyed-listeners.js';

describe('KeyedListeners', () => {
  it("calls a key's listeners, every key's with callAll, and none after the unsubscribe", () => {
    const listeners = new KeyedListeners();
    const calls: string[] = [];
    const stopA = listeners.add('s1', () => calls.push('a'));
    listeners.add('s1', () => calls.push('b'));
    listeners.add('s2', () => calls.push('c'));
    listeners.call('s1');
    listeners.call('unknown');
    expect(calls).toEqual(['a', 'b']);
    listeners.callAll();
    expect(calls).toEqual(['a', 'b', 'a', 'b', 'c']);
    stopA();
    stopA();
    listeners.call('s1');
    expect(calls).toEqual(['a', 'b', 'a', 'b', 'c', 'b']);
  });

  it('calls the listeners subscribed when it is called, even one that another unsubscribes meanwhile', () => {
    const listeners = new KeyedListeners();
    const calls: string[] = [];
    let stopSecond = (): void => undefined;
    listeners.add('s1', () => {
      calls.push('first');
      stopSecond();
      listeners.add('s1', () => calls.push('late'));
    });
    stopSecond = listeners.add('s1', () => calls.push('second'));
    listeners.call('s1');
    expect(calls).toEqual(['first', 'second']);
    listeners.call('s1');
    expect(calls).toEqual(['first', 'second', 'first', 'late']);
  });

  it('forgets a key whose last listener left: a listener added to it later is called alone', () => {
    const listeners = new KeyedListeners();
    const calls: string[] = [];
    const stop = listeners.add('s1', () => calls.push('old'));
    stop();
    listeners.add('s1', () => calls.push('new'));
    listeners.call('s1');
    expect(calls).toEqual(['new']);
  });
});

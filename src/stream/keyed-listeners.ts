/**
 * Callbacks by key (a stream id, or a notification key): what a stream manager's readers and end hints subscribe to,
 * called by the manager when that key's notification comes (or for every key, when one may have been missed).
 *
 * @example
 * const listeners = new KeyedListeners();
 * const stop = listeners.add('s1', () => wake());
 * listeners.call('s1'); // wake()
 * stop();
 */
export class KeyedListeners {
  readonly #byKey = new Map<string, Set<() => void>>();

  /** Call `listener` on each `call(key)` (and `callAll()`) until the returned unsubscribe. */
  add(key: string, listener: () => void): () => void {
    const listeners = this.#byKey.get(key) ?? new Set<() => void>();
    this.#byKey.set(key, listeners);
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.#byKey.get(key) === listeners) this.#byKey.delete(key);
    };
  }

  /** Call `key`'s listeners (those subscribed when it is called: one that unsubscribes meanwhile is still called). */
  call(key: string): void {
    for (const listener of [...(this.#byKey.get(key) ?? [])]) listener();
  }

  /** Call every listener of every key. */
  callAll(): void {
    for (const key of [...this.#byKey.keys()]) this.call(key);
  }
}

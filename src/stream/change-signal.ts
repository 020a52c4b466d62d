/**
 * A counter of "something may have changed" events that waiters can block on without missing one: take
 * `version` before looking at the data, then `waitBeyond(version)` resolves at once if a change arrived in
 * between. Used by readers to sleep between reads.
 *
 * @example
 * const signal = new ChangeSignal();
 * const seen = signal.version;
 * const chunks = await readChunks();            // a write may land here…
 * if (chunks.length === 0) await signal.waitBeyond(seen, 1_000); // …and still wakes us
 */
export class ChangeSignal {
  #version = 0;
  readonly #waiters = new Set<() => void>();

  /** The number of changes announced so far. */
  get version(): number {
    return this.#version;
  }

  /** Announce a change: every current waiter resolves. */
  notify(): void {
    this.#version += 1;
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }

  /**
   * Resolve once `version` exceeds `seenVersion`, after `timeoutMs` (when given), or when `signal` aborts —
   * whichever comes first. Never rejects.
   */
  waitBeyond(seenVersion: number, timeoutMs?: number, signal?: AbortSignal): Promise<void> {
    if (this.#version > seenVersion || signal?.aborted === true) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (): void => {
        this.#waiters.delete(finish);
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', finish);
        resolve();
      };
      this.#waiters.add(finish);
      if (timeoutMs !== undefined) timer = setTimeout(finish, timeoutMs);
      signal?.addEventListener('abort', finish, { once: true });
    });
  }
}

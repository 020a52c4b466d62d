/**
 * Process-local wake-ups for handles waiting on a run: the step that records a run's end (or its suspension)
 * signals it, so a handle in the same process resolves at once instead of at its next poll. Handles still
 * poll the store (the source of truth), so a run ending in another process is seen too.
 */
const waiters = new Map<string, Set<() => void>>();

/**
 * Resolve when `signalRunChanged(key)` is called in this process for any of `keys` (a run id, or
 * {@link sessionSignal} of a root session), after `timeoutMs`, or when `stop` fires (the waiter is dropped).
 *
 * @example
 * await waitForRunChange(runId, 25);
 */
export async function waitForRunChange(keys: string | readonly string[], timeoutMs: number, stop?: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => {
    const unlisten = listen(typeof keys === 'string' ? [keys] : keys, () => done());
    const done = (): void => {
      clearTimeout(timer);
      unlisten();
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    stop?.addEventListener('abort', done, { once: true });
  });
}

/** Call `wake` on each `signalRunChanged` of any of `keys` until the returned function is called. */
function listen(keys: readonly string[], wake: () => void): () => void {
  for (const key of keys) {
    const set = waiters.get(key) ?? new Set<() => void>();
    waiters.set(key, set);
    set.add(wake);
  }
  return () => {
    for (const key of keys) {
      const set = waiters.get(key);
      set?.delete(wake);
      if (set?.size === 0) waiters.delete(key);
    }
  };
}

/**
 * What {@link watchRunChange} saw: whether any of its keys was signalled since it began.
 *
 * @example
 * const watch: RunChangeWatch = watchRunChange([runId]);
 */
export interface RunChangeWatch {
  /** True once any of the keys was signalled (the watch then stops listening). */
  readonly changed: boolean;
  /** Stop listening (idempotent). */
  release(): void;
}

/**
 * Remember whether `signalRunChanged` is called for any of `keys` from now on: a handle of a run this process is
 * about to start learns, when its caller first asks for the result, whether the run may have changed meanwhile. It
 * listens until the first signal or `release()` (every run's end signals its run id, so a watch never outlives its run
 * in this process).
 *
 * @example
 * const watch = watchRunChange([runId, sessionSignal(sessionId)]);
 * if (watch.changed) await readTheStore();
 * watch.release();
 */
export function watchRunChange(keys: readonly string[]): RunChangeWatch {
  let changed = false;
  const release = listen(keys, () => {
    changed = true;
    release();
  });
  return {
    get changed() {
      return changed;
    },
    release,
  };
}

/**
 * The signal key of a root session: a descendant that starts waiting for a human signals it, so the root's
 * handles in this process look at once.
 *
 * @example
 * signalRunChanged(sessionSignal(rootSessionId));
 */
export function sessionSignal(sessionId: string): string {
  return `session:${sessionId}`;
}

/**
 * Wake every handle of this process waiting on `runId` (its status or record changed), or on a {@link sessionSignal} key.
 *
 * @example
 * signalRunChanged(input.runId);
 */
export function signalRunChanged(runId: string): void {
  for (const wake of [...(waiters.get(runId) ?? [])]) wake();
}

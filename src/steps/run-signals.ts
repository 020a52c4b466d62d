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
  const all = typeof keys === 'string' ? [keys] : keys;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      for (const key of all) {
        const set = waiters.get(key);
        set?.delete(done);
        if (set?.size === 0) waiters.delete(key);
      }
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    stop?.addEventListener('abort', done, { once: true });
    for (const key of all) {
      const set = waiters.get(key) ?? new Set<() => void>();
      waiters.set(key, set);
      set.add(done);
    }
  });
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

/**
 * Process-local wake-ups for handles waiting on a run: the step that records a run's end (or its suspension)
 * signals it, so a handle in the same process resolves at once instead of at its next poll. Handles still
 * poll the store (the source of truth), so a run ending in another process is seen too.
 */
const waiters = new Map<string, Set<() => void>>();

/**
 * Resolve when `signalRunChanged(runId)` is called in this process, or after `timeoutMs`.
 *
 * @example
 * await waitForRunChange(runId, 25);
 */
export async function waitForRunChange(runId: string, timeoutMs: number): Promise<void> {
  await new Promise<void>((resolve) => {
    const set = waiters.get(runId) ?? new Set<() => void>();
    waiters.set(runId, set);
    const done = (): void => {
      clearTimeout(timer);
      set.delete(done);
      if (set.size === 0 && waiters.get(runId) === set) waiters.delete(runId);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    set.add(done);
  });
}

/**
 * Wake every handle of this process waiting on `runId` (its status or record changed).
 *
 * @example
 * signalRunChanged(input.runId);
 */
export function signalRunChanged(runId: string): void {
  for (const wake of [...(waiters.get(runId) ?? [])]) wake();
}

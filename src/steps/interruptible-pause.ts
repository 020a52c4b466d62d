import type { SessionStateStore } from '../store/state-store.js';

/** How often a backoff pause looks at the session's interrupt flag. */
const CHECK_EVERY_MS = 50;

/**
 * Sleep inside a step (retry backoff) but end early when the session's durable interrupt flag is set — by
 * interrupt() or abort(), from any process. The flag is only read (left set for the step boundary that finalizes
 * the run). Returns true when the pause was cut short by an interrupt.
 */
export async function pauseUnlessInterrupted(stateStore: SessionStateStore, sessionId: string, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await stateStore.isInterruptRequested(sessionId)) return true;
    const left = until - Date.now();
    if (left <= 0) return false;
    await new Promise<void>((resolve) => setTimeout(resolve, Math.min(left, CHECK_EVERY_MS)).unref());
  }
}

/** How often an LLM call in flight reads the interrupt flag. */
const WATCH_EVERY_MS = 50;

/** A watch over the interrupt flag while an LLM call runs. */
export interface InterruptWatch {
  /** Aborts when the flag is set or `outer` aborts (workflow cancellation). */
  signal: AbortSignal;
  /** True once the watch aborted the call because of the flag. */
  interrupted(): boolean;
  stop(): void;
}

/**
 * Read the session's interrupt flag every 50 ms (a read, leaving the flag for the step to consume) and abort
 * `signal` when it is set, so interrupt() stops an LLM call in flight, not only at the next step boundary.
 */
export function watchInterruptFlag(stateStore: SessionStateStore, sessionId: string, outer: AbortSignal | undefined): InterruptWatch {
  const controller = new AbortController();
  let flagged = false;
  let stopped = false;
  const poll = async (): Promise<void> => {
    while (!stopped) {
      await new Promise<void>((resolve) => setTimeout(resolve, WATCH_EVERY_MS).unref());
      if (stopped) return;
      if (await stateStore.isInterruptRequested(sessionId).catch(() => false)) {
        flagged = true;
        controller.abort(new Error('Interrupted'));
        return;
      }
    }
  };
  void poll();
  return {
    signal: outer === undefined ? controller.signal : AbortSignal.any([controller.signal, outer]),
    interrupted: () => flagged,
    stop: () => {
      stopped = true;
    },
  };
}

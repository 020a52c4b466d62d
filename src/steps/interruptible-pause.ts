import type { SessionStateStore } from '../store/state-store.js';

/** How often a backoff pause looks at the session's interrupt flag. */
const CHECK_EVERY_MS = 50;

/**
 * Sleep inside a step (retry backoff) but end early when the session's durable interrupt flag is set — by
 * interrupt() or abort(), from any process. The flag is left set (re-armed) for the step boundary that
 * finalizes the run. Returns true when the pause was cut short by an interrupt.
 */
export async function pauseUnlessInterrupted(stateStore: SessionStateStore, sessionId: string, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    const flag = await stateStore.checkInterruptFlag(sessionId);
    if (flag.interrupted) {
      await stateStore.setInterruptFlag(sessionId, flag.reason);
      return true;
    }
    const left = until - Date.now();
    if (left <= 0) return false;
    await new Promise<void>((resolve) => setTimeout(resolve, Math.min(left, CHECK_EVERY_MS)).unref());
  }
}

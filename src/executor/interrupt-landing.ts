import { AgentAlreadyRunningError } from '../errors/index.js';
import { sessionSignal, waitForRunChange } from '../steps/run-signals.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { StreamManager } from '../stream/stream-manager.js';
import { repairStuckRun } from './stuck-run.js';

/**
 * How long `resume()` waits for an interrupted run to stop. A run stops at its next step boundary, LLM-call poll
 * (50 ms) or wake-up; only a tool that ignores its abort signal holds it longer.
 */
export const INTERRUPT_LANDING_WAIT_MS = 60_000;
/** How often the run record is read while waiting (a run of this process signals sooner). */
const LANDING_POLL_MS = 100;

/**
 * Wait until the interrupted run `runId` of `sessionId` has recorded its end (or was repaired because its workflow
 * ended without one), so a `resume()` right after `interrupt()` starts a new run instead of attaching to the old one.
 *
 * @throws AgentAlreadyRunningError `AGENT_ALREADY_RUNNING` when the run is still running after `waitMs`.
 * @example
 * if (decision.action === 'await_interrupt') { await awaitInterruptLanding(stateStore, streamManager, sessionId, run.runId); continue; }
 */
export async function awaitInterruptLanding(
  stateStore: SessionStateStore,
  streamManager: StreamManager,
  sessionId: string,
  runId: string,
  waitMs: number = INTERRUPT_LANDING_WAIT_MS,
): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    if ((await stateStore.getRun(sessionId, runId))?.status !== 'running') return;
    if (await repairStuckRun(stateStore, streamManager, sessionId)) return;
    if (Date.now() > deadline) throw new AgentAlreadyRunningError(sessionId, 'running (interrupt requested, not yet stopped)');
    await waitForRunChange([runId, sessionSignal(sessionId)], LANDING_POLL_MS);
  }
}

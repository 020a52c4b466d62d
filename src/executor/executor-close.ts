import { randomUUID } from 'node:crypto';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { wakeForClose } from '../channels/close-wake.js';
import { requestShutdown } from '../channels/persistent-inbox.js';
import type { Logger } from '../hooks/types.js';
import { localPersistentWorkflows } from '../steps/local-persistent-sessions.js';
import { beginClosingWarmWaits, beginDraining, isHeldWorkflow, workflowsInWakeableWait } from '../workflows/warm-waits.js';
import { releaseRuntimeResources } from './runtime-resources.js';

/**
 * Options of `DBOSAgentExecutor.close()`.
 *
 * @example
 * await executor.close({ timeoutMs: 10_000 });
 */
export interface CloseOptions {
  /**
   * How long close() waits for this process's workflows to let go: warm persistent sessions to end (a turn in
   * progress finishes first) and woken warm waits to be held. Whatever still runs then is left to DBOS recovery.
   * Default 30 s.
   */
  timeoutMs?: number;
  /**
   * Drain: standard runs in progress finish their current step, then hold (their workflow stays `PENDING`, nothing
   * more runs here), so a fleet member can hand them over (`FleetMember.handOver()`) before `DBOS.shutdown()`.
   * Without it those runs go on until the process exits. Default false.
   */
  drain?: boolean;
}

/**
 * Default of `CloseOptions.timeoutMs` (30 s).
 *
 * @example
 * await executor.close({ timeoutMs: DEFAULT_CLOSE_TIMEOUT_MS / 3 });
 */
export const DEFAULT_CLOSE_TIMEOUT_MS = 30_000;

/** How often close() looks whether the workflows it waits for have let go. */
const CLOSE_POLL_MS = 20;

/**
 * `DBOSAgentExecutor.close()`, while DBOS runs:
 * 1. every persistent-session workflow of this process idle in its inbox is asked to end (a durable `shutdown`
 *    message: after its current turn it closes with end reason `shutdown`, like a park, so the next message restarts
 *    it from the store and nothing is left for recovery);
 * 2. warm waits are closed (see `warmReceive`): a wait that starts from now on takes only a message already sent,
 *    then holds its workflow (nothing in memory polls or sleeps; the workflow stays `PENDING`);
 * 3. every warm wait in progress — a run waiting for a human (client tool, approval), a parent waiting for a child
 *    or a companion — is woken (a `CloseWakeMessage`) and held;
 * 4. with `drain`, every standard run holds at its next step boundary (after the step in progress is recorded);
 * 5. close() waits until each of these workflows ended or is held (up to `timeoutMs`).
 * Nothing is marked failed or parked: DBOS recovery in the next process continues the held workflows in their wait,
 * where a submission continues them in place. Then the process-local resources are released. So after
 * `await DBOS.shutdown()` and closing the stores, no DBOS poll timer keeps the process alive.
 *
 * @example
 * await closeExecutor(logger, { timeoutMs: 5_000 });
 */
export async function closeExecutor(logger: Logger, options: CloseOptions = {}): Promise<void> {
  if (DBOS.isInitialized()) {
    const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS);
    // A session whose turn waits for a human keeps its inbox: it is held in that wait and recovered as it is.
    const inHumanWait = workflowsInWakeableWait();
    const persistent = [...localPersistentWorkflows].filter((workflowId) => !inHumanWait.has(workflowId) && !isHeldWorkflow(workflowId));
    await sendAll(logger, persistent, requestShutdown);
    // After the shutdown requests: an idle session that reaches its inbox while closing still finds its request.
    const waits = beginClosingWarmWaits().filter((wait) => wait.wakeable);
    const draining = options.drain === true ? beginDraining() : [];
    const wakes = waits.map((wait) => sendAll(logger, [wait.workflowId], (workflowId, key) => wakeForClose(workflowId, wait.topic, key)));
    await Promise.all(wakes);
    await untilLetGo(logger, [...new Set([...localPersistentWorkflows, ...waits.map((wait) => wait.workflowId), ...draining])], deadline);
  }
  await releaseRuntimeResources();
}

/** Send one close request to each workflow (through its channel), each keyed `close:<uuid>`; a failed send is logged. */
async function sendAll(
  logger: Logger,
  workflowIds: string[],
  send: (workflowId: string, idempotencyKey: string) => Promise<void>,
): Promise<void> {
  await Promise.all(
    workflowIds.map(async (workflowId) => {
      try {
        await send(workflowId, `close:${randomUUID()}`);
      } catch {
        logger.warn('executor.close_request_failed', { workflowId });
      }
    }),
  );
}

/** Wait until every workflow ended or is held in a warm wait (see `warmReceive`), or the deadline passed. */
async function untilLetGo(logger: Logger, workflowIds: string[], deadline: number): Promise<void> {
  let waiting = workflowIds;
  while (waiting.length > 0) {
    if (Date.now() >= deadline) {
      logger.warn('executor.close_timed_out', { workflows: waiting.length });
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, CLOSE_POLL_MS));
    // A body that ended has left the set; DBOS records its outcome just after the body returns, and only then is
    // nothing left for recovery.
    const still = await Promise.all(
      waiting.map(async (workflowId) => !isHeldWorkflow(workflowId) && (localPersistentWorkflows.has(workflowId) || (await DBOS.getWorkflowStatus(workflowId))?.status === 'PENDING')),
    );
    waiting = waiting.filter((_, index) => still[index]);
  }
}

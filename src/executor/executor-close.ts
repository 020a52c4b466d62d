import { randomUUID } from 'node:crypto';
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { Logger } from '../hooks/types.js';
import { PERSISTENT_INBOX_TOPIC, type PersistentShutdownMessage } from '../orchestration/persistent-session.js';
import { localPersistentWorkflows } from '../steps/local-persistent-sessions.js';
import { releaseRuntimeResources } from './runtime-resources.js';

/**
 * Options of `DBOSAgentExecutor.close()`.
 *
 * @example
 * await executor.close({ timeoutMs: 10_000 });
 */
export interface CloseOptions {
  /**
   * How long close() waits for warm persistent sessions to end (a turn in progress finishes first). Sessions
   * still running then are left to DBOS recovery, which closes them with `shutdown` after their turn. Default 30 s.
   */
  timeoutMs?: number;
}

/**
 * Default of `CloseOptions.timeoutMs` (30 s).
 *
 * @example
 * await executor.close({ timeoutMs: DEFAULT_CLOSE_TIMEOUT_MS / 3 });
 */
export const DEFAULT_CLOSE_TIMEOUT_MS = 30_000;

/**
 * `DBOSAgentExecutor.close()`: while DBOS runs, every persistent-session workflow of this process is asked to end
 * (a durable inbox message: after its current turn it closes with end reason `shutdown`, like a park, so the next
 * message restarts it from the store and nothing is left for recovery); close() waits for them up to the
 * deadline. Then the process-local resources are released.
 *
 * @example
 * await closeExecutor(logger, { timeoutMs: 5_000 });
 */
export async function closeExecutor(logger: Logger, options: CloseOptions = {}): Promise<void> {
  if (DBOS.isInitialized()) await closeLocalPersistentSessions(logger, options.timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS);
  await releaseRuntimeResources();
}

async function closeLocalPersistentSessions(logger: Logger, timeoutMs: number): Promise<void> {
  const workflowIds = [...localPersistentWorkflows];
  if (workflowIds.length === 0) return;
  const message: PersistentShutdownMessage = { kind: 'shutdown' };
  await Promise.all(
    workflowIds.map(async (workflowId) => {
      try {
        await DBOS.send(workflowId, message, PERSISTENT_INBOX_TOPIC, `shutdown:${randomUUID()}`);
      } catch {
        logger.warn('persistent.shutdown_request_failed', { workflowId });
      }
    }),
  );
  const deadline = Date.now() + timeoutMs;
  let waiting = workflowIds;
  while (waiting.length > 0) {
    if (Date.now() >= deadline) {
      logger.warn('persistent.shutdown_timed_out', { sessions: waiting.length });
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    // A body that ended has left the set; DBOS records its outcome just after the body returns, and only then is
    // nothing left for recovery.
    const still = await Promise.all(waiting.map(async (workflowId) => localPersistentWorkflows.has(workflowId) || (await DBOS.getWorkflowStatus(workflowId))?.status === 'PENDING'));
    waiting = waiting.filter((_, index) => still[index]);
  }
}

import { DBOS } from '@dbos-inc/dbos-sdk';
import { isCloseWakeMessage, type CloseWakeMessage } from '../channels/close-wake.js';

/** A warm wait in progress: a workflow body in `DBOS.recv` on `topic`. */
interface WarmWait {
  workflowId: string;
  topic: string;
  /** False for the persistent inbox: close() ends those workflows with a `shutdown` message instead. */
  wakeable: boolean;
}

const inProgress = new Set<WarmWait>();
const held = new Set<string>();
/** Standard-run workflow bodies running in this process (see {@link runningHere}). */
const running = new Set<string>();
let closing = false;
let draining = false;

/** Shortest recv timeout (DBOS takes seconds; sub-50 ms waits only spin). */
const MIN_RECV_SECONDS = 0.05;

/**
 * Workflow-body only: `DBOS.recv` on `topic` for up to `timeoutMs` (`null` on timeout), known to `executor.close()`.
 * While DBOS's recv sleeps, its poll timer (up to 10 s) keeps the process alive, and `DBOS.shutdown()` does not end
 * it. So once the process closes, a wait takes only a message already sent, then holds the body: a promise that
 * never settles and keeps nothing alive. The workflow stays `PENDING` and DBOS recovery continues it (same wait)
 * in the next process. A recv that fails because DBOS is shutting down holds the body too: nothing can be recorded.
 *
 * @example
 * const message = await warmReceive<CallMessage>(toolCallId, 60_000, true);
 */
export async function warmReceive<TMessage>(topic: string, timeoutMs: number, wakeable: boolean): Promise<TMessage | null> {
  const workflowId = DBOS.workflowID ?? '';
  const timeoutSeconds = Math.max(MIN_RECV_SECONDS, timeoutMs / 1000);
  if (closing) {
    const sent = await receiveOrHold<TMessage>(workflowId, topic, MIN_RECV_SECONDS);
    return sent !== null || timeoutSeconds <= MIN_RECV_SECONDS ? sent : hold(workflowId);
  }
  const wait: WarmWait = { workflowId, topic, wakeable };
  inProgress.add(wait);
  try {
    return await receiveOrHold<TMessage>(workflowId, topic, timeoutSeconds);
  } finally {
    inProgress.delete(wait);
  }
}

async function receiveOrHold<TMessage>(workflowId: string, topic: string, timeoutSeconds: number): Promise<TMessage | null> {
  try {
    const message = await DBOS.recv<TMessage | CloseWakeMessage>(topic, { timeoutSeconds });
    // Recorded, the wake reads as a timeout when the workflow is recovered: its loop re-checks and waits again.
    if (isCloseWakeMessage(message)) return closing ? hold(workflowId) : null;
    return message;
  } catch (error) {
    if (closing || !DBOS.isInitialized()) return hold(workflowId);
    throw error;
  }
}

function hold(workflowId: string): Promise<never> {
  held.add(workflowId);
  for (const wait of inProgress) if (wait.workflowId === workflowId) inProgress.delete(wait);
  return new Promise<never>(() => undefined);
}

/**
 * `executor.close()`: from now on every warm wait of this process is held (see {@link warmReceive}). Returns the
 * waits in progress, for close() to wake (the wakeable ones) and to wait for.
 *
 * @example
 * const waits = beginClosingWarmWaits();
 */
export function beginClosingWarmWaits(): Array<{ workflowId: string; topic: string; wakeable: boolean }> {
  closing = true;
  return [...inProgress].map((wait) => ({ ...wait }));
}

/**
 * The workflows whose body waits now for a human, a child or a companion (a wakeable warm wait), by id.
 *
 * @example
 * if (workflowsInWakeableWait().has(workflowId)) console.log('waiting for a human or a child');
 */
export function workflowsInWakeableWait(): Set<string> {
  return new Set([...inProgress].filter((wait) => wait.wakeable).map((wait) => wait.workflowId));
}

/**
 * True when this workflow's body is held by a closing process (it does nothing more here; recovery continues it).
 *
 * @example
 * if (isHeldWorkflow(workflowId)) return; // nothing left to wait for
 */
export function isHeldWorkflow(workflowId: string): boolean {
  return held.has(workflowId);
}

/**
 * A new executor reopens warm waits: waits that start from now on wait as usual. Bodies already held stay held:
 * DBOS may have been shut down and launched again since, and recovery runs them anew.
 *
 * @example
 * reopenWarmWaits();
 */
export function reopenWarmWaits(): void {
  closing = false;
  draining = false;
}

/**
 * Workflow-body only: run a standard run's body known to `executor.close({ drain: true })`.
 *
 * @example
 * return runningHere(input.workflowId, () => runRecordedTurn(agent, scope, input));
 */
export async function runningHere<T>(workflowId: string, body: () => Promise<T>): Promise<T> {
  running.add(workflowId);
  try {
    return await body();
  } finally {
    running.delete(workflowId);
  }
}

/**
 * Workflow-body only, at a step boundary: while this process drains, hold the body here (its steps so far are
 * recorded; the workflow stays `PENDING` for another process to continue), else go on at once.
 *
 * @example
 * await holdIfDraining();
 */
export async function holdIfDraining(): Promise<void> {
  if (draining) await hold(DBOS.workflowID ?? '');
}

/**
 * `executor.close({ drain: true })`: from now on standard runs hold at their next step boundary. Returns the bodies
 * running now, for close() to wait for (each ends or is held).
 *
 * @example
 * const bodies = beginDraining();
 */
export function beginDraining(): string[] {
  draining = true;
  return [...running];
}

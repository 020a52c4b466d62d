import { DBOS } from '@dbos-inc/dbos-sdk';

/** Name DBOS records for the durable timeout a `DBOS.recv` writes before it starts waiting. */
const RECV_TIMEOUT_STEP = 'DBOS.sleep';
/** Name DBOS records for a completed `DBOS.recv`. */
const RECV_STEP = 'DBOS.recv';
/** After the timeout record the recv registers its listener and checks once: allow it this long. */
const RECV_SETTLE_MS = 20;
const POLL_MS = 5;
const WAIT_LIMIT_MS = 60_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Wait until a workflow is blocked in its first `DBOS.recv` (its timeout is recorded, plus a short settle).
 *
 * @example
 * await waitUntilReceiving(handle.workflowId);
 * const sentAt = Date.now(); // the message now wakes a blocked recv
 */
export async function waitUntilReceiving(workflowId: string): Promise<void> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  while (!((await DBOS.listWorkflowSteps(workflowId)) ?? []).some((step) => step.name === RECV_TIMEOUT_STEP)) {
    if (Date.now() > deadline) throw new Error(`Workflow ${workflowId} did not reach DBOS.recv within ${WAIT_LIMIT_MS} ms.`);
    await sleep(POLL_MS);
  }
  await sleep(RECV_SETTLE_MS);
}

/**
 * When (epoch ms, as DBOS recorded it) the workflow's first `DBOS.recv` returned.
 *
 * @example
 * const wakeMs = (await recvReturnedAt(workflowId)) - sentAt;
 */
export async function recvReturnedAt(workflowId: string): Promise<number> {
  const recv = ((await DBOS.listWorkflowSteps(workflowId)) ?? []).find((step) => step.name === RECV_STEP);
  if (recv?.completedAtEpochMs === undefined) throw new Error(`Workflow ${workflowId} has no completed DBOS.recv.`);
  return recv.completedAtEpochMs;
}

/**
 * Wait until a workflow is no longer pending (e.g. a run that parked ended its workflow).
 *
 * @example
 * await waitUntilEnded(handle.workflowId);
 */
export async function waitUntilEnded(workflowId: string): Promise<void> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const status = (await DBOS.getWorkflowStatus(workflowId))?.status;
    if (status !== undefined && status !== 'PENDING' && status !== 'ENQUEUED') return;
    if (Date.now() > deadline) throw new Error(`Workflow ${workflowId} did not end within ${WAIT_LIMIT_MS} ms.`);
    await sleep(POLL_MS * 5);
  }
}

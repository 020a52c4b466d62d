import { AsyncLocalStorage } from 'node:async_hooks';
import { DBOS } from '@dbos-inc/dbos-sdk';

const snapshot = AsyncLocalStorage.snapshot();

/**
 * Run `work` in the (empty) async context of this module's loading: outside any DBOS workflow, so a DBOS call in it is
 * a plain client call, not an operation recorded in (or refused by) the calling workflow — e.g. from the body of a
 * workflow that was cancelled.
 *
 * @example
 * const cancelled = await outsideWorkflows(async () => (await DBOS.getWorkflowStatus(id))?.status === 'CANCELLED');
 */
export function outsideWorkflows<T>(work: () => T): T {
  return snapshot(work);
}

/**
 * Whether DBOS records `workflowID` as CANCELLED, asked outside any workflow (see {@link outsideWorkflows}): from the body
 * of a workflow, or of its step, that may be the one cancelled.
 *
 * @example
 * if (await cancelledOutsideWorkflows(DBOS.workflowID!)) throw new DBOSErrors.DBOSWorkflowCancelledError(DBOS.workflowID!);
 */
export function cancelledOutsideWorkflows(workflowID: string): Promise<boolean> {
  return outsideWorkflows(async () => (await DBOS.getWorkflowStatus(workflowID))?.status === 'CANCELLED');
}

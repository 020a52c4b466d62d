import { AsyncLocalStorage } from 'node:async_hooks';

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

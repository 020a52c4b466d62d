import { DBOS } from '@dbos-inc/dbos-sdk';
import { DBOSForkRefusedError } from '../errors/index.js';

/**
 * First line of every agent workflow body: a workflow running under an id other than the one its input was started
 * with is a copy — `DBOS.forkWorkflow` / `dbos workflow fork` re-run a workflow under a new id with the SAME input
 * (session, run and stream ids). Such a copy would write the original session, so it throws before any step (its
 * DBOS status becomes ERROR and nothing of the session, run or stream changes). Deterministic: the workflow id never
 * changes across replays.
 *
 * @throws DBOSForkRefusedError `DBOS_FORK_REFUSED` in a forked workflow.
 * @example
 * refuseForeignWorkflowId(input.workflowId);
 */
export function refuseForeignWorkflowId(startedAs: string): void {
  const running = DBOS.workflowID;
  if (running !== undefined && running !== startedAs) throw new DBOSForkRefusedError(running);
}

import { DBOS } from '@dbos-inc/dbos-sdk';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { StepJournal } from './journal-types.js';
import { SEPARATE_RECORD } from './step-record.js';

/** Runs a function in the (empty) async context of this module's loading: outside any DBOS workflow. */
const outsideWorkflows = AsyncLocalStorage.snapshot();

/**
 * The public journal: every step is a `DBOS.runStep` (DBOS's own record, four round trips) and the stores write
 * through their declared interfaces on their own. It needs nothing beyond DBOS's public API, so it runs on every DBOS
 * release; CI runs the integration and crash suites on it too (`HELIX_JOURNAL=public`).
 *
 * @example
 * useJournal('public');
 */
export const publicJournal: StepJournal = {
  kind: 'public',
  runStep: (name, body) => DBOS.runStep(() => body(SEPARATE_RECORD), { name }),
  // Inside a workflow body DBOS records a status read as an operation; read it from outside the workflow's context.
  workflowCancelled: (workflowID) => outsideWorkflows(async () => (await DBOS.getWorkflowStatus(workflowID))?.status === 'CANCELLED'),
};

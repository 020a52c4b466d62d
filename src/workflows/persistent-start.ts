import { InternalError } from '../errors/index.js';
import type { PersistentWorkflowInput } from '../orchestration/persistent-session.js';

/** Starts a persistent session's workflow; bound by `persistent.workflow.ts` when it registers the workflow. */
type PersistentStarter = (input: PersistentWorkflowInput) => Promise<void>;

let starter: PersistentStarter | undefined;

/**
 * Bind the function that starts a persistent session's workflow. The workflow module binds it at load, so that
 * code the persistent workflow itself runs (a companion spawn inside a turn) can start one without importing it
 * (an import cycle through the turn loop).
 *
 * @example
 * bindPersistentStarter(async (input) => { await DBOS.startWorkflow(PersistentWorkflows.runPersistentSession, { workflowID: input.workflowId })(input); });
 */
export function bindPersistentStarter(start: PersistentStarter): void {
  starter = start;
}

/**
 * Start (or, with an id DBOS knows, find) a persistent session's workflow.
 *
 * @throws InternalError `INTERNAL_ERROR` when the persistent workflow module was never loaded (no executor constructed).
 * @example
 * await startPersistentWorkflow(marker.start);
 */
export async function startPersistentWorkflow(input: PersistentWorkflowInput): Promise<void> {
  if (starter === undefined) {
    const advice = 'construct a DBOSAgentExecutor before DBOS.launch()';
    throw new InternalError(`The persistent session workflow is not registered: ${advice}.`);
  }
  await starter(input);
}

/** DBOS errors that are not a run's failure: this process lost the workflow, or the workflow was cancelled. */
const CONTROL_ERROR_NAMES = new Set(['DBOSWorkflowConflictError', 'DBOSWorkflowCancelledError']);

/**
 * Whether `error` means "stop touching this run" rather than "the run failed": DBOS reports that another process
 * owns the workflow now (a rolling deploy, a second process with the same executor id), or that the workflow was
 * cancelled (abort). The workflow rethrows these untouched — no failed status, no ended stream, no hooks — and DBOS
 * adopts the owner's outcome. Matched by name too: DBOS revives replayed errors as plain `Error`s.
 *
 * @example
 * if (isDBOSControlError(error)) throw error;
 */
export function isDBOSControlError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (CONTROL_ERROR_NAMES.has(error.name) || CONTROL_ERROR_NAMES.has(error.constructor.name)) return true;
  return error.message.includes('is no longer owned by this execution');
}

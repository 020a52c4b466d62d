import { JournalFormatUnsupportedError } from '../errors/index.js';
import { activeJournal } from './journal.js';
import type { JournalStamp } from '../types/journal.js';

/**
 * The step-journal format this release writes and replays: every agent step is one DBOS `operation_outputs` row
 * under contiguous function ids (format 1). Runs of earlier releases (no stamp) left some steps without a row.
 */
export const JOURNAL_FORMAT = 1;

/**
 * The stamp for a run started now.
 *
 * @example
 * const input = { ...scope, journal: journalStamp() };
 */
export function journalStamp(): JournalStamp {
  return { format: JOURNAL_FORMAT, journal: activeJournal() };
}

/**
 * Workflow-body guard: refuse a run recorded in a format this release cannot replay (it would re-run steps).
 * Deterministic: it reads only the workflow's input.
 *
 * @throws JournalFormatUnsupportedError `JOURNAL_FORMAT_UNSUPPORTED`.
 * @example
 * refuseUnknownJournal(input.workflowId, input.journal);
 */
export function refuseUnknownJournal(workflowId: string, stamp: JournalStamp | undefined): void {
  if (stamp?.format !== JOURNAL_FORMAT) throw new JournalFormatUnsupportedError(workflowId, stamp?.format ?? null);
}

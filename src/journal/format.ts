import { JournalFormatUnsupportedError } from '../errors/index.js';
import { activeJournal } from './journal.js';
import type { JournalStamp } from '../types/journal.js';

/**
 * The step-journal format this release writes: every agent step is one DBOS `operation_outputs` row under contiguous
 * function ids (format 1), and an LLM step records its result without a wrapper and a tool step committed with its
 * tool's record records only its call id and that (format 2, smaller rows). Runs of earlier releases (no stamp) left some steps
 * without a row.
 */
export const JOURNAL_FORMAT = 2;

/** The formats this release replays: its own and format 1, whose records its steps still read. */
const REPLAYED_FORMATS: readonly number[] = [1, JOURNAL_FORMAT];

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
  if (stamp === undefined || !REPLAYED_FORMATS.includes(stamp.format)) throw new JournalFormatUnsupportedError(workflowId, stamp?.format ?? null);
}

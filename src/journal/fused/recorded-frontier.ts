import type { StepRecordRow } from './record-row.js';

/**
 * What one execution of a workflow learnt about the workflow's recorded steps, from its own fused steps: whether
 * the next fused step can skip its read of a recorded outcome (see {@link mayRunUnread}).
 *
 * @example
 * const frontier: RecordedFrontier = { knownMax: 4, lastRecorded: { functionID: 5, at: Date.now() } };
 */
export interface RecordedFrontier {
  /**
   * The highest function id any execution had recorded when this one first found a step unrecorded. Above it,
   * only an owner of the workflow can record, and a record checks ownership (DBOS's owner token), so a step of
   * this execution above it finds nothing recorded unless this execution lost the workflow meanwhile.
   */
  knownMax?: number;
  /** The last step this execution ran and recorded itself (the record verified it still owned the workflow). */
  lastRecorded?: { functionID: number; at: number };
  /** A step's record left to the next step's transaction (`StepOptions.recordWithNext`), until that step takes it. */
  carried?: StepRecordRow;
}

/**
 * How long after the previous step's record the next one may skip its read: a cancellation that lands in this
 * window is seen at the step after (or by the record, which fails for a cancelled workflow: cancelling clears
 * the owner token), as if it had landed while the step ran, which it always could.
 */
export const UNREAD_WINDOW_MS = 250;

/**
 * Whether fused step `functionID` may run without reading its recorded outcome and the workflow's cancellation:
 * it is above everything recorded when this execution started recording (nothing to replay), and it directly
 * follows a step this execution recorded moments ago (which checked ownership; no DBOS operation in between).
 * The read it saves is one round trip per step.
 *
 * @example
 * mayRunUnread({ knownMax: 2, lastRecorded: { functionID: 3, at: 1_000 } }, 4, 1_010); // true
 * mayRunUnread({ knownMax: 2, lastRecorded: { functionID: 3, at: 1_000 } }, 5, 1_010); // false: operation 4 came between
 */
export function mayRunUnread(frontier: RecordedFrontier, functionID: number, now: number): boolean {
  const { knownMax, lastRecorded } = frontier;
  if (knownMax === undefined || lastRecorded === undefined) return false;
  return functionID > knownMax && lastRecorded.functionID === functionID - 1 && now - lastRecorded.at >= 0 && now - lastRecorded.at <= UNREAD_WINDOW_MS;
}

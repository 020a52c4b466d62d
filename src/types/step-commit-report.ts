import type { StoredMessage } from './message.js';
import type { SessionState } from './session.js';

/**
 * What a step commit saw and wrote, so the caller can go on with the session without reading it again
 * (`saveStateAndPromoteStaging`'s optional `report`; `PostgresStateStore` fills it).
 *
 * @example
 * const { report } = await store.saveStateAndPromoteStaging('s1', { stepCount: 2 }, messages, meta);
 * if (report?.interruptRequested === false) { … }
 */
export interface StepCommitReport {
  /** The session after the commit (as found, when the checkpoint already existed). */
  state: SessionState;
  /** Messages in the session after the commit. */
  messageCount: number;
  /** The messages this commit appended, with their sequences (none when the checkpoint already existed). */
  appended: StoredMessage[];
  /** The interrupt flag as the commit's row lock read it (not cleared). */
  interruptRequested: boolean;
}

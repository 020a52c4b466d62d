/**
 * Which journal records a run's steps: `fused` (a step's record and its effects in one transaction on DBOS's system
 * database, through DBOS internals verified per release) or `public` (`DBOS.runStep`, stores writing on their own).
 *
 * @example
 * const kind: JournalKind = 'public';
 */
export type JournalKind = 'fused' | 'public';

/**
 * The journal stamp a run's workflow input carries (recorded by DBOS with the input, like Temporal's patch markers):
 * the format its steps are recorded in, and the journal that started it. Either journal replays the other's steps.
 *
 * @example
 * const stamp: JournalStamp = { format: 1, journal: 'fused' };
 */
export interface JournalStamp {
  format: number;
  journal: JournalKind;
}

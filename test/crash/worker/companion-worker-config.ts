/**
 * The contract between the companion crash drills and their worker (companion-worker.ts).
 */

/** Configuration of a companion drill worker. */
export interface CompanionWorkerConfig {
  mode: 'start' | 'recover';
  databaseUrl: string;
  /** The parent (standard-mode) session. */
  sessionId: string;
  /** Start mode: parent turns, in order; before each next one, every companion turn has ended. */
  messages: string[];
  /** Recover mode: the parent runs to await. */
  runIds?: string[];
  /** Start mode: a model call whose last user message is this never returns (the process is killed there). */
  hangOn?: string;
  /** Start mode: hang right after a companion continuation's marker CAS, before its workflow starts. */
  hangAfterContinueCas?: boolean;
  persistentWarmWindowMs?: number;
  /** Before exiting, wait until these companion sessions parked. */
  waitParked?: string[];
}

/** Side table of the drill (created by the test): every model call, with how many delivered companion outcomes it saw. */
export const COMPANION_DRILL_TABLES = `
  CREATE TABLE IF NOT EXISTS companion_llm_calls (session_id text, agent_type text, user_text text, delivered int);
`;

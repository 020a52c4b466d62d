/**
 * The contract between the companion crash drills and their worker (companion-worker.ts).
 */

/** Configuration of a companion drill worker. */
export interface CompanionWorkerConfig {
  /** `submit`: answer `submit` against the root session (no execute), then await the run it resumed. */
  mode: 'start' | 'recover' | 'submit';
  databaseUrl: string;
  /** The parent (standard-mode) session. */
  sessionId: string;
  /** Start mode: parent turns, in order; before each next one, every companion turn has ended. */
  messages: string[];
  /** Recover mode: the parent runs to await. */
  runIds?: string[];
  /** Start mode: a model call whose last user message is this never returns (the process is killed there). */
  hangOn?: string;
  /**
   * Start/submit mode: hang right after the store committed a version-checked write of a companion marker naming a
   * workflow whose id contains this (`-continue-`: a continuation's CAS; `-resume-`: a parked turn's resume), before
   * the body starts that workflow.
   */
  hangAfterMarkerCas?: string;
  /** Submit mode: the clerk's model call that reads the human's answer never returns. */
  hangOnHumanAnswer?: boolean;
  /** Start mode: do not exit after the messages (the process is killed there). */
  holdOpen?: boolean;
  /** Submit mode: the answer to submit against the root session. */
  submit?: { toolCallId: string; result: unknown };
  persistentWarmWindowMs?: number;
  hitlWarmWindowMs?: number;
  autoResumeOnSubmit?: boolean;
  /** Before exiting, wait until these companion sessions parked. */
  waitParked?: string[];
}

/** Side table of the drill (created by the test): every model call, with how many delivered companion outcomes it saw. */
export const COMPANION_DRILL_TABLES = `
  CREATE TABLE IF NOT EXISTS companion_llm_calls (session_id text, agent_type text, user_text text, delivered int, last_role text);
`;

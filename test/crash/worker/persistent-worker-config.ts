/**
 * The contract between the persistent-session crash drill and its worker (persistent-worker.ts).
 */

/** Configuration of a persistent drill worker. */
export interface PersistentWorkerConfig {
  mode: 'start' | 'recover' | 'send';
  databaseUrl: string;
  sessionId: string;
  messages: string[];
  /** Recover mode: the runs to await. */
  runIds?: string[];
  blockTools?: boolean;
  applicationVersion?: string;
  persistentWarmWindowMs?: number;
  /**
   * Start mode: once a tool call ran (blocked by `blockTools`), call `executor.close({ timeoutMs: closeTimeoutMs })`,
   * print a `result` event with sessionId `close` when it returned, then wait to be killed.
   */
  closeTimeoutMs?: number;
}

/** Side tables of the drill (created by the parent). */
export const PERSISTENT_DRILL_TABLES = `
  CREATE TABLE IF NOT EXISTS persistent_llm_calls (session_id text, run_id text, step int, user_text text);
  CREATE TABLE IF NOT EXISTS persistent_tool_runs (session_id text, call_id text);
`;


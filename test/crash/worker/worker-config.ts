/**
 * The contract between a crash-drill test (parent) and its agent worker (child process): the configuration
 * the parent passes in one environment variable, and the JSON lines the worker prints on stdout.
 * Plain types and functions only: both processes import this file.
 */

/**
 * Environment variable holding the JSON-encoded {@link WorkerConfig}.
 *
 * @example
 * spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, [WORKER_CONFIG_ENV]: JSON.stringify(config) } });
 */
export const WORKER_CONFIG_ENV = 'HELIX_CRASH_WORKER_CONFIG';

/**
 * DBOS application name every crash worker launches with (recovery and dequeue are scoped by it).
 *
 * @example
 * DBOS.setConfig({ name: CRASH_APPLICATION_NAME, systemDatabaseUrl, applicationVersion: CRASH_APPLICATION_VERSION });
 */
export const CRASH_APPLICATION_NAME = 'helix-crash-drill';

/**
 * Pinned DBOS application version: DBOS only recovers workflows of the same version.
 *
 * @example
 * DBOS.setConfig({ name: CRASH_APPLICATION_NAME, systemDatabaseUrl, applicationVersion: CRASH_APPLICATION_VERSION });
 */
export const CRASH_APPLICATION_VERSION = 'crash-drill-1';

/**
 * The side table where tools record every execution (created by the parent before any worker starts).
 *
 * @example
 * await pool.query(`SELECT count(*) FROM ${TOOL_RUNS_TABLE} WHERE session_id = $1`, [sessionId]);
 */
export const TOOL_RUNS_TABLE = 'crash_tool_runs';

/**
 * The app table the transactional drill tool writes (in the drill database, created by the parent).
 *
 * @example
 * await pool.query(`SELECT count(*) FROM ${APP_FACTS_TABLE} WHERE session_id = $1`, [sessionId]);
 */
export const APP_FACTS_TABLE = 'crash_app_facts';

/**
 * Where a drill worker stops (prints a `paused` event, then never continues) for the parent to SIGKILL it: a
 * transactional tool call after tool_start before the transaction, inside it after the tool's insert, or after its
 * COMMIT before DBOS records the operation; a run's start committed before its workflow runs (`start_recorded`, by
 * session; execute() does not return); a run's begin or finish with its writes done and its record not
 * (`begin_deferred`, `finish_deferred`; `pauseAt.toolCallId` then names the session), or after the finish's record, before the
 * workflow function returns (`finish_recorded`, also by session); a public-journal step whose
 * batch record committed, before DBOS records the step (`batch_committed`; `pauseAt.toolCallId` names the step).
 *
 * @example
 * const pauseAt: PausePoint = 'inside_transaction';
 */
export type PausePoint =
  | 'before_transaction'
  | 'inside_transaction'
  | 'start_recorded'
  | 'after_commit'
  | 'begin_deferred'
  | 'finish_deferred'
  | 'finish_recorded'
  | 'batch_committed';

/**
 * What a worker does:
 * - `start`: execute() every session and print each result;
 * - `recover`: never execute; launch DBOS (which recovers pending workflows) and print each session's result;
 * - `replay`: rewind each session's completed workflow in place (same id, every step kept) and print the
 *   result of its re-execution;
 * - `resume`: resume() every session (interrupted, or parked waiting for a human) and print each result.
 * A run that waits warm for a human is not a result yet: start/recover/resume print the run's outcome once it
 * completes, fails, ends interrupted or aborted, or parks.
 *
 * @example
 * const mode: WorkerMode = 'recover';
 */
export type WorkerMode = 'start' | 'recover' | 'replay' | 'resume';

/**
 * Which drill agent a worker runs: `crash` (crash-agent.ts), `hitl` (hitl-agent.ts) or `transactional`
 * (transactional-agent.ts; its worker's executor gets the drill database as `appDatabase`). Every worker registers
 * all of them before launch, so a recovering process can continue any.
 *
 * @example
 * const agent: WorkerAgent = 'hitl';
 */
export type WorkerAgent = 'crash' | 'hitl' | 'transactional';

/**
 * Everything a worker needs. `sessions` run concurrently in one process.
 *
 * @example
 * const config: WorkerConfig = { mode: 'start', databaseUrl, openaiBaseUrl: fake.baseURL, sessions: ['s1'], blockToolCalls: ['call_b'] };
 */
export interface WorkerConfig {
  mode: WorkerMode;
  /** Store, streams, usage and the DBOS system tables all live in this database. */
  databaseUrl: string;
  /** `http://127.0.0.1:<port>/v1` of the fake OpenAI server running in the parent. */
  openaiBaseUrl: string;
  /** Session ids to execute (start) or to wait for (recover, replay). */
  sessions: string[];
  /** Tool call ids whose tool, after recording its execution, never returns (start mode only). */
  blockToolCalls?: string[];
  /**
   * Recover mode only: register the agent and launch DBOS first, and construct the executor this many ms
   * after the session's recovered workflow is claimed by this process (its next step must wait for it).
   */
  lateExecutorMs?: number;
  /** The agent to execute/resume. Default `crash`. */
  agent?: WorkerAgent;
  /** The executor's `hitlWarmWindowMs` (how long a human-in-the-loop wait stays warm). Default: the executor's. */
  hitlWarmWindowMs?: number;
  /** DBOS applicationVersion. Default {@link CRASH_APPLICATION_VERSION}. */
  applicationVersion?: string;
  /**
   * Give the executor an onMessage hook that sleeps this long per message: it widens the windows inside the
   * steps that fire it (a commit, a park) so the parent can observe what those steps publish, and in which order.
   */
  messageHookDelayMs?: number;
  /** Every tool sleeps this long after recording its execution (widens the window of a rolling-deploy drill). */
  toolDelayMs?: number;
  /** Start mode, transactional agent: stop this tool call at this point of its transaction (see {@link PausePoint}). */
  pauseAt?: { point: PausePoint; toolCallId: string };
  /** The executor's step journal. Default: the executor's (`HELIX_JOURNAL`, else fused). */
  journal?: 'fused' | 'public';
  /**
   * The stream manager's `flushIntervalMs`. A long one keeps chunks buffered until a step flushes them, so a
   * killed worker dies with them (the worst case a recovery must repair). Default: the stream manager's.
   */
  streamFlushIntervalMs?: number;
}

/**
 * One line a worker prints on stdout (one JSON object per line).
 *
 * @example
 * const line: WorkerEvent = { event: 'result', sessionId: 's1', result: { status: 'completed' } };
 */
export type WorkerEvent =
  | { event: 'launched'; at: number }
  | { event: 'started'; sessionId: string; runId: string; workflowId: string }
  | { event: 'executor_constructed'; at: number }
  | { event: 'result'; sessionId: string; result: unknown; at?: number }
  | { event: 'paused'; point: PausePoint; toolCallId: string }
  | { event: 'agent_done'; sessionId: string }
  | { event: 'failed'; message: string };

/**
 * Configuration of the "inside your DBOS app" worker (user-app-worker.ts), in {@link WORKER_CONFIG_ENV}.
 *
 * @example
 * const config: UserAppWorkerConfig = { mode: 'recover', databaseUrl, sessionId: 'onboard-ada' };
 */
export interface UserAppWorkerConfig {
  mode: 'start' | 'recover';
  databaseUrl: string;
  sessionId: string;
}

/**
 * The user message that starts a session. The fake OpenAI server reads the session id back from it, so
 * every LLM request is attributed to its session without any state shared between processes.
 *
 * @example
 * userMessageFor('tool-crash-1'); // 'Collect the facts. [session:tool-crash-1]'
 */
export function userMessageFor(sessionId: string): string {
  return `Collect the facts. [session:${sessionId}]`;
}

/**
 * The session id a request's text carries (see {@link userMessageFor}), if any.
 *
 * @example
 * sessionIdIn('… [session:abc-1] …'); // 'abc-1'
 */
export function sessionIdIn(text: string): string | undefined {
  return /\[session:([A-Za-z0-9_-]+)\]/.exec(text)?.[1];
}

/**
 * The contract between the fleet tests (the API process) and their fleet workers (fleet-worker.ts,
 * fleet-member-worker.ts): the queue they share, the tool ledger and the configuration a worker reads from
 * `HELIX_CRASH_WORKER_CONFIG`. Plain types and constants only: both processes import this file.
 */
import type { ModelLimit } from '../../../src/limits/model-limits.js';

/**
 * The DBOS queue the fleet agent names; each worker registers it after `DBOS.launch()`.
 *
 * @example
 * await DBOS.registerQueue(FLEET_QUEUE, { minPollingIntervalMs: 20, workerConcurrency: 2 });
 */
export const FLEET_QUEUE = 'agents';

/**
 * Agent type of the fleet agent (part of every workflow id).
 *
 * @example
 * expect(handle.workflowId.startsWith(`${FLEET_AGENT_NAME}__`)).toBe(true);
 */
export const FLEET_AGENT_NAME = 'fleet_drill';

/**
 * What a fleet worker needs. The worker runs whatever it dequeues; `sessions` only tells it when to stop (once
 * every one of them has a run whose workflow ended, whichever process ran it).
 *
 * @example
 * const config: FleetWorkerConfig = { databaseUrl, openaiBaseUrl: llm.baseURL, sessions: ['fleet-1'], workerConcurrency: 2, toolDelayMs: 300 };
 */
export interface FleetWorkerConfig {
  /** Store, streams, usage and the DBOS system tables all live in this database. */
  databaseUrl: string;
  /** `http://127.0.0.1:<port>/v1` of the fake OpenAI server running in the parent. */
  openaiBaseUrl: string;
  /** The sessions the API process runs; the worker exits once all of them ended. */
  sessions: string[];
  /** The queue's `workerConcurrency`: at most this many runs at once in one worker. */
  workerConcurrency: number;
  /** The lookup tool sleeps this long after recording its execution (keeps a worker's slots busy). */
  toolDelayMs: number;
}

/**
 * Agent type of the ledger fleet agent (fleet-agent.ts): its tool writes a start and an end record per execution.
 *
 * @example
 * expect(handle.workflowId.startsWith(`${FLEET_LEDGER_AGENT_NAME}__`)).toBe(true);
 */
export const FLEET_LEDGER_AGENT_NAME = 'fleet_ledger_drill';

/**
 * The table where the ledger agent's tool records each execution: a row at its start (with the process id), its
 * `ended_at` set when it returns. The parent creates it (`FLEET_TOOL_LEDGER_SQL`) before any worker starts.
 *
 * @example
 * await pool.query(`SELECT count(*) FROM ${FLEET_TOOL_LEDGER} WHERE ended_at IS NULL`);
 */
export const FLEET_TOOL_LEDGER = 'fleet_tool_ledger';

/**
 * DDL of {@link FLEET_TOOL_LEDGER}.
 *
 * @example
 * const env = useDrill('crash_fleet_dead', { tables: FLEET_TOOL_LEDGER_SQL });
 */
export const FLEET_TOOL_LEDGER_SQL = `CREATE TABLE ${FLEET_TOOL_LEDGER} (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  session_id   text NOT NULL,
  tool_call_id text NOT NULL,
  pid          integer NOT NULL,
  started_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  ended_at     timestamptz
)`;

/**
 * The model key of the fleet workers' calls (`openai.chat('fake-model')` through the VercelAIAdapter).
 *
 * @example
 * const limits = { [FLEET_MODEL_KEY]: { concurrency: 3 } };
 */
export const FLEET_MODEL_KEY = 'openai:fake-model';

/**
 * A fleet-member worker (fleet-member-worker.ts): a queued-fleet worker that also joins the fleet under its own
 * executor id (FleetMember: lease, sweeper) and, with `modelLimits`, takes its model calls' permits from a
 * PostgresModelLimiter shared by every worker. It runs the ledger agent.
 *
 * @example
 * const config: FleetMemberWorkerConfig = { ...fleetConfig, executorId: 'worker-1', deadAfterMs: 1_500, sweepIntervalMs: 250 };
 */
export interface FleetMemberWorkerConfig extends FleetWorkerConfig {
  /** FleetMember executor id and DBOS `executorID`. */
  executorId: string;
  /** The member's `deadAfterMs`: how long another member's lease must stay free before it takes its runs over. */
  deadAfterMs: number;
  /** The member's `sweepIntervalMs` (also how soon it notices its own lost lease connection). */
  sweepIntervalMs: number;
  /** Fleet-wide limits by model key (PostgresModelLimiter); none: calls are not limited. */
  modelLimits?: Record<string, ModelLimit>;
  /** The limiter's `permitLeaseMs`: how long a permit of a killed worker keeps its slot. */
  permitLeaseMs?: number;
  /**
   * On SIGTERM, drain and hand over: `executor.close({ drain: true })` (each run finishes its step in flight, then
   * holds), DBOS.shutdown(), `member.handOver()` (its PENDING runs re-enqueued). Default: close without draining.
   */
  drain?: boolean;
}

/**
 * The lines a fleet-member worker prints besides the agent workers' events: when it starts joining, when its join
 * returned (it holds its executor id's lease) and when it is leaving (DBOS shut down and its connections closed:
 * nothing of it runs or records any more; it releases the lease next).
 *
 * @example
 * const line: FleetWorkerEvent = { event: 'joined', at: Date.now() };
 */
export type FleetWorkerEvent = { event: 'joining'; at: number } | { event: 'joined'; at: number } | { event: 'leaving'; at: number };

/**
 * The contract between the queued-fleet test (the API process) and its fleet workers (fleet-worker.ts): the queue
 * they share and the configuration a worker reads from `HELIX_CRASH_WORKER_CONFIG`. Plain types and constants only:
 * both processes import this file.
 */

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

import { LineProtocol } from '../bench-child.js';
/**
 * What a fleet child runs as: `local` (today's single-process executor: agents without a queue, started in place),
 * `api` (an executor without llmAdapter that only enqueues; DBOS listens to no queue) or `worker` (registers the
 * agents and the queue, runs what it dequeues).
 *
 * @example
 * const role: FleetRole = 'worker';
 */
export type FleetRole = 'local' | 'api' | 'worker';

/**
 * A child's configuration, passed as JSON in `FLEET_CHILD_CONFIG`.
 *
 * @example
 * const config: FleetChildConfig = { role: 'worker', databaseUrl, executorId: 'worker-1', pollingMs: 10, workerConcurrency: 64 };
 */
export interface FleetChildConfig {
  role: FleetRole;
  databaseUrl: string;
  /** DBOS executor id of the process. */
  executorId: string;
  /** The queue's `minPollingIntervalMs` (workers). */
  pollingMs?: number;
  /** The queue's `workerConcurrency` (workers; absent: unlimited). */
  workerConcurrency?: number;
}

/**
 * How one run ended, as the caller's `handle.result()` reported it.
 *
 * @example
 * const outcome: RunOutcome = { sessionId: 'round-1-0', status: 'completed', stepCount: 11 };
 */
export interface RunOutcome {
  sessionId: string;
  status: string;
  stepCount: number;
}

/**
 * One one-step run, in ms from the `execute()` call: when it returned, when DBOS recorded the workflow dequeued
 * (queued runs only) and completed (DBOS's database clock, whole ms), and when `result()` resolved.
 *
 * @example
 * const sample: LatencySample = { returnedMs: 4.1, dequeuedMs: 9, completedMs: 21, resultMs: 24.6 };
 */
export interface LatencySample {
  returnedMs: number;
  dequeuedMs?: number;
  completedMs: number;
  resultMs: number;
}

/**
 * How the caller waits for a burst's results: each handle's `result()` (what an application does), or, as a
 * diagnostic, one DBOS status query for all the runs every 20 ms and each result read once its run ended.
 *
 * @example
 * const awaitBy: AwaitBy = 'handle';
 */
export type AwaitBy = 'handle' | 'status';

/**
 * What the parent asks a fleet child (one line on its stdin): start `sessions` multi-step sessions at once and await
 * them all `awaitBy` (api, local), run `samples` one-step runs one at a time (api, local), report the tool calls it ran for
 * sessions named `<label>-…` (worker, local), or shut down and exit.
 *
 * @example
 * const command: FleetCommand = { type: 'burst', label: 'round-1', sessions: 128, awaitBy: 'handle' };
 */
export type FleetCommand =
  | { type: 'burst'; label: string; sessions: number; awaitBy: AwaitBy }
  | { type: 'latency'; label: string; samples: number }
  | { type: 'counts'; label: string }
  | { type: 'exit' };

/**
 * What a fleet child answers (one line on its stdout). `cpuMs`: the process's CPU time (user + system) during the
 * burst, or, for `counts`, since its previous `counts` reply.
 *
 * @example
 * const reply: FleetReply = { type: 'counts', toolCalls: { 'round-1-0': 10 }, cpuMs: 830 };
 */
export type FleetReply =
  | { type: 'ready' }
  | { type: 'burst'; wallMs: number; cpuMs: number; outcomes: RunOutcome[] }
  | { type: 'latency'; samples: LatencySample[] }
  | { type: 'counts'; toolCalls: Record<string, number>; cpuMs: number };

/**
 * The line protocol between the fleet bench and its children.
 *
 * @example
 * child.stdin.write(FLEET_PROTOCOL.line({ type: 'exit' }));
 */
export const FLEET_PROTOCOL = new LineProtocol<FleetCommand | FleetReply>('FLEET ');

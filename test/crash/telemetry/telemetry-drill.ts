/**
 * The moves of a telemetry crash drill, on the crash-drill kit (`useDrill`, the fake OpenAI server, the worker
 * registry and its waits): start a run in a traced worker (`telemetry-worker.ts`) that will be SIGKILLed, and recover
 * it in a fresh traced worker under the same DBOS executor id. Each session's spans go to its own file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import type { AgentResult } from '../../../src/types/result.js';
import type { Drill } from '../support/drill.js';
import { DRILL_TIMEOUTS, expectCleanExit, outcomeOf, type DoomedRun } from '../support/drill-flow.js';
import type { WorkerProcess } from '../support/worker-process.js';
import type { WorkerConfig } from '../worker/worker-config.js';

const TELEMETRY_WORKER_SCRIPT = fileURLToPath(new URL('../worker/telemetry-worker.ts', import.meta.url));

/**
 * What a telemetry worker is told: an agent worker's configuration (crash agent, fake OpenAI server) and the file its
 * spans go to. Start mode executes the sessions, recover mode only launches DBOS and awaits them.
 *
 * @example
 * const config: TelemetryWorkerConfig = { ...env.workerConfig('recover', ['s1']), mode: 'recover', spanFile };
 */
export interface TelemetryWorkerConfig extends WorkerConfig {
  mode: 'start' | 'recover';
  spanFile: string;
  /** Start mode: the run's onAgentComplete hook never returns (its finish step never records). */
  holdFinish?: boolean;
}

/**
 * A fresh directory for the file's span files (removed after the tests); returns a session's span file.
 *
 * @example
 * const spanFileOf = useSpanFiles();
 * readSpanLines(spanFileOf('otel-tool-drill'));
 */
export function useSpanFiles(): (sessionId: string) => string {
  const directory = mkdtempSync(join(tmpdir(), 'helix-telemetry-crash-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  return (sessionId) => join(directory, `${sessionId}.jsonl`);
}

function spawnTraced(env: Drill, config: TelemetryWorkerConfig, executorId: string, role: string): WorkerProcess {
  return env.workers.spawn(`${role} telemetry worker ${executorId}`, executorId, config, TELEMETRY_WORKER_SCRIPT);
}

/**
 * Execute one session in a traced worker whose `blockToolCalls` never return; resolves once execute() did.
 *
 * @example
 * const doomed = await startTracedRun(env, spanFile, 'otel-tool', 's1', ['call_1_lookup_b']);
 */
export async function startTracedRun(
  env: Drill,
  spanFile: string,
  executorId: string,
  sessionId: string,
  blockToolCalls: string[],
  options: { holdFinish?: boolean } = {},
): Promise<DoomedRun> {
  const config = { ...env.workerConfig('start', [sessionId], { blockToolCalls }), mode: 'start' as const, spanFile, ...options };
  const worker = spawnTraced(env, config, executorId, 'doomed');
  const started = await worker.waitForEvent('started', DRILL_TIMEOUTS.start, (event) => event.sessionId === sessionId);
  return { worker, executorId, sessionId, runId: started.runId, workflowId: started.workflowId };
}

/**
 * SIGKILL the doomed worker, recover its run in a traced worker under the same executor id (DBOS recovers at
 * launch; the worker never calls execute) and resolve the result it printed, once it exited cleanly.
 *
 * @example
 * const { worker, result } = await killAndRecoverTraced(env, spanFile, doomed);
 */
export async function killAndRecoverTraced(
  env: Drill,
  spanFile: string,
  doomed: DoomedRun,
): Promise<{ worker: WorkerProcess; result: AgentResult }> {
  await doomed.worker.kill();
  const config = { ...env.workerConfig('recover', [doomed.sessionId]), mode: 'recover' as const, spanFile };
  const worker = spawnTraced(env, config, doomed.executorId, 'recover');
  const { result } = await outcomeOf(worker, doomed.sessionId);
  await expectCleanExit(worker);
  return { worker, result };
}

/**
 * Child process of `npm run bench`: `node --expose-gc --import tsx bench/waiting-sessions.ts <none|warm|parked>`
 * with `BENCH_DATABASE_URL` set to a fresh database. Starts the scenario's sessions (each suspends on a
 * client tool), waits until all wait warm (15 min window) or have parked (200 ms window), lets Postgres's
 * statistics settle, then measures a quiet window (no submissions) and prints one FOOTPRINT_REPORT line.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { DBOSAgentExecutor, PostgresStateStore, PostgresStreamManager, PostgresUsageStore } from '../src/index.js';
import { withSessionTimeouts } from '../examples/demo/app-config.js';
import { createBenchModel } from './agent-loop.js';
import { hitlBenchScale } from './bench-scale.js';
import { formatFootprintLine, FOOTPRINT_SCENARIOS, type FootprintScenario } from './footprint-report.js';
import { createHitlAgent } from './hitl-agents.js';
import { runConcurrently } from './run-concurrently.js';
import { openTransactionCounter } from './transaction-counter.js';

const WARM_WINDOW_MS = 15 * 60_000;
const PARKING_WARM_WINDOW_MS = 200;
const PARKED_POLL_MS = 250;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function pendingWorkflows(): Promise<number> {
  return (await DBOS.listWorkflows({ status: 'PENDING', loadInput: false, loadOutput: false })).length;
}

async function main(): Promise<void> {
  const scenario = process.argv[2] as FootprintScenario;
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  if (!FOOTPRINT_SCENARIOS.includes(scenario) || databaseUrl === undefined) {
    throw new Error('Usage: BENCH_DATABASE_URL=… node --expose-gc --import tsx bench/waiting-sessions.ts <none|warm|parked>');
  }
  const scale = hitlBenchScale();
  const sessions = scenario === 'none' ? 0 : scale.footprintSessions;
  const stateStore = new PostgresStateStore({ connectionString: databaseUrl });
  const streamManager = new PostgresStreamManager({ connectionString: databaseUrl });
  const usageStore = new PostgresUsageStore({ connectionString: databaseUrl });
  await stateStore.migrate();
  const llmAdapter = createBenchModel(0);
  const hitlWarmWindowMs = scenario === 'parked' ? PARKING_WARM_WINDOW_MS : WARM_WINDOW_MS;
  const executor = new DBOSAgentExecutor({ stateStore, streamManager, usageStore, llmAdapter, hitlWarmWindowMs });
  DBOS.setConfig({ name: 'helix-agents-bench', systemDatabaseUrl: withSessionTimeouts(databaseUrl), applicationVersion: 'bench', logLevel: 'warn' });
  await DBOS.launch();

  const agent = createHitlAgent();
  const startedAt = performance.now();
  await runConcurrently(sessions, scale.startConcurrency, async (index) => {
    const sessionId = `${scenario}-${index}`;
    const result = await (await executor.execute(agent, 'Go.', { sessionId })).result(); // resolves once the run waits
    if (result.status !== 'suspended_client_tool') throw new Error(`The run of ${sessionId} ended ${result.status} instead of waiting.`);
  });
  if (scenario === 'parked') while ((await pendingWorkflows()) > 0) await sleep(PARKED_POLL_MS);
  const startMs = performance.now() - startedAt;

  await sleep(scale.settleMs);
  const counter = await openTransactionCounter(databaseUrl);
  const before = await counter.count();
  const cpuBefore = process.cpuUsage();
  await sleep(scale.quietWindowMs);
  const after = await counter.count();
  const cpu = process.cpuUsage(cpuBefore);
  await counter.close();
  const pending = await pendingWorkflows();
  (globalThis as { gc?: () => void }).gc?.();
  const memory = process.memoryUsage();
  const seconds = scale.quietWindowMs / 1000;
  process.stdout.write(
    formatFootprintLine({
      scenario,
      sessions,
      startMs,
      rssBytes: memory.rss,
      heapUsedBytes: memory.heapUsed,
      transactionsPerSecond: (after - before) / seconds,
      cpuMsPerSecond: (cpu.user + cpu.system) / 1000 / seconds,
      pendingWorkflows: pending,
      quietWindowMs: scale.quietWindowMs,
    }),
  );
}

/** Exit once stdout has drained; warm workflows are left to die with the process (the parent drops the database). */
const exitAfterFlush = (code: number): void => void process.stdout.write('', () => process.exit(code));
main().then(
  () => exitAfterFlush(0),
  (error: unknown) => {
    process.stderr.write(`waiting-sessions failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    exitAfterFlush(1);
  },
);

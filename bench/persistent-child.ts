/**
 * Child process of `npm run bench` for persistent sessions: `node --expose-gc --import tsx bench/persistent-child.ts
 * <latency|persistent-warm|persistent-parked>` with `BENCH_DATABASE_URL` set to a fresh database.
 * - latency: message → reply of a persistent session waiting warm, of one that parked, and a fresh standard run;
 *   prints one PERSISTENT_LATENCY line.
 * - persistent-warm / persistent-parked: N sessions that each ran one turn, then wait warm (15 min window: the
 *   reference's behaviour) or have parked (200 ms window); measures a quiet window and prints one FOOTPRINT_REPORT line.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { DBOSAgentExecutor, PostgresStateStore, PostgresStreamManager, readPersistentMarker } from '../src/index.js';
import { withSessionTimeouts } from '../examples/demo/app-config.js';
import { createBenchModel } from './agent-loop.js';
import { hitlBenchScale } from './bench-scale.js';
import { formatFootprintLine, type FootprintScenario } from './footprint-report.js';
import { createAnswerAgent } from './hitl-agents.js';
import { summarizeLatencies } from './latency-summary.js';
import { runConcurrently } from './run-concurrently.js';
import { openTransactionCounter } from './transaction-counter.js';

/** Prefix of the latency report line (read by persistent-sessions.ts). */
const LATENCY_LINE_PREFIX = 'PERSISTENT_LATENCY ';
const WARM_WINDOW_MS = 15 * 60_000;
const PARKING_WINDOW_MS = 200;
const POLL_MS = 20;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const scenario = process.argv[2];
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  if (databaseUrl === undefined || !['latency', 'persistent-warm', 'persistent-parked'].includes(scenario ?? '')) {
    throw new Error('Usage: BENCH_DATABASE_URL=… node --expose-gc --import tsx bench/persistent-child.ts <latency|persistent-warm|persistent-parked>');
  }
  const scale = hitlBenchScale();
  const stateStore = new PostgresStateStore({ connectionString: databaseUrl });
  const streamManager = new PostgresStreamManager({ connectionString: databaseUrl });
  await stateStore.migrate();
  const llmAdapter = createBenchModel(0);
  const warm = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter, persistentWarmWindowMs: WARM_WINDOW_MS });
  const parking = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter, persistentWarmWindowMs: PARKING_WINDOW_MS });
  DBOS.setConfig({ name: 'helix-agents-bench', systemDatabaseUrl: withSessionTimeouts(databaseUrl), applicationVersion: 'bench', logLevel: 'warn' });
  await DBOS.launch();
  const agent = createAnswerAgent();
  const turn = async (executor: DBOSAgentExecutor, sessionId: string, text: string): Promise<number> => {
    const startedAt = performance.now();
    const result = await (await executor.execute(agent, text, { sessionId, mode: 'persistent' })).result();
    if (result.status !== 'completed') throw new Error(`A turn of ${sessionId} ended ${result.status}.`);
    return performance.now() - startedAt;
  };
  const parked = async (sessionId: string): Promise<void> => {
    while (readPersistentMarker((await stateStore.loadState(sessionId))?.metadata)?.phase !== 'closed') await sleep(POLL_MS);
  };

  if (scenario === 'latency') {
    const samples = scale.latencySamples;
    const warmMs: number[] = [];
    const parkedMs: number[] = [];
    const freshMs: number[] = [];
    await turn(warm, 'warm-up', 'Go.');
    for (let index = 0; index < samples; index += 1) {
      await turn(warm, `warm-${index}`, 'Go.');
      warmMs.push(await turn(warm, `warm-${index}`, 'Again.'));
      await turn(parking, `parked-${index}`, 'Go.');
      await parked(`parked-${index}`);
      parkedMs.push(await turn(parking, `parked-${index}`, 'Again.'));
      const startedAt = performance.now();
      await (await warm.execute(agent, 'Go.', { sessionId: `fresh-${index}` })).result();
      freshMs.push(performance.now() - startedAt);
    }
    process.stdout.write(`${LATENCY_LINE_PREFIX}${JSON.stringify({ warm: summarizeLatencies(warmMs), parked: summarizeLatencies(parkedMs), fresh: summarizeLatencies(freshMs) })}\n`);
    return;
  }

  const sessions = scale.footprintSessions;
  const executor = scenario === 'persistent-parked' ? parking : warm;
  const startedAt = performance.now();
  await runConcurrently(sessions, scale.startConcurrency, async (index) => void (await turn(executor, `${scenario}-${index}`, 'Go.')));
  if (scenario === 'persistent-parked') while ((await DBOS.listWorkflows({ status: 'PENDING', loadInput: false, loadOutput: false })).length > 0) await sleep(250);
  const startMs = performance.now() - startedAt;
  await sleep(scale.settleMs);
  const counter = await openTransactionCounter(databaseUrl);
  const before = await counter.count();
  const cpuBefore = process.cpuUsage();
  await sleep(scale.quietWindowMs);
  const after = await counter.count();
  const cpu = process.cpuUsage(cpuBefore);
  await counter.close();
  const pending = (await DBOS.listWorkflows({ status: 'PENDING', loadInput: false, loadOutput: false })).length;
  (globalThis as { gc?: () => void }).gc?.();
  const memory = process.memoryUsage();
  const seconds = scale.quietWindowMs / 1000;
  process.stdout.write(
    formatFootprintLine({
      scenario: scenario as FootprintScenario,
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

/** Exit once stdout has drained; warm workflows die with the process (the parent drops the database). */
const exitAfterFlush = (code: number): void => void process.stdout.write('', () => process.exit(code));
main().then(
  () => exitAfterFlush(0),
  (error: unknown) => {
    process.stderr.write(`persistent-child failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    exitAfterFlush(1);
  },
);

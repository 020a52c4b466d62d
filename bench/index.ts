/**
 * `npm run bench`: issue 11's side-by-side comparison (ours on the fused and on the public step journal,
 * LangGraph.js + PostgresSaver, a naive DBOS loop; see bench/side-by-side/), then what an agent step of our durable loop costs next to DBOS's own floor, whether a step
 * late in a long session costs the same as an early one, and what human-in-the-loop waits cost: waking a
 * warm run and resuming a parked one (against DBOS send→recv and a fresh run), and the memory and idle
 * Postgres load of sessions waiting warm against parked ones (each in its own child process). One
 * Postgres server, one run; prints tables (targets as PASS/MISS) and fails only when a system did not run
 * its tool calls. `BENCH_SCALE=small` shrinks everything; `HELIX_BENCH_ONLY=side-by-side` runs only the
 * comparison (sizes: bench/side-by-side/side-by-side-scale.ts); `HELIX_BENCH_ONLY=turn-latency` runs only issue 25's
 * one-step turn latencies (bench/turn-latency/; the full run measures them after the side-by-side comparison);
 * `HELIX_BENCH_ONLY=persistent` runs only the persistent-session figures (bench/persistent-sessions.ts);
 * `HELIX_BENCH_ONLY=fleet` runs only issue 22's fleet figures (bench/fleet/: steps/s of an API process with 1, 2 and
 * 4 worker processes against the single-process executor, and what enqueueing adds to a one-step run; the full run
 * measures them last); `HELIX_BENCH_ONLY=telemetry` runs only issue 23's telemetry overhead (bench/telemetry/: ms/step with
 * `telemetry: false`, the default without an SDK and tracing on; the full run measures it before the fleet part).
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { DBOSAgentExecutor, PostgresStateStore, PostgresStreamManager, PostgresUsageStore } from '../src/index.js';
import { withSessionTimeouts } from '../examples/demo/app-config.js';
import { formatTable } from '../examples/demo/format-table.js';
import { averageStepMs, createBenchAgent, createBenchModel, stepStarts, timeAgentRun } from './agent-loop.js';
import { BareStepWorkflows } from './bare-steps.workflow.js';
import { openBenchDatabase, type BenchDatabase } from './bench-database.js';
import { hitlBenchScale } from './bench-scale.js';
import { measureFootprint } from './footprint-scenarios.js';
import { createAnswerAgent, createHitlAgent } from './hitl-agents.js';
import { formatFootprintTable, formatLatencyTable } from './hitl-report.js';
import { RecvBaselineWorkflows } from './recv-baseline.workflow.js';
import { measureResumeLatencies } from './resume-latency.js';
import { measurePersistentSessions } from './persistent-sessions.js';
import { measureFleet } from './fleet/fleet.js';
import { measureSideBySide } from './side-by-side/side-by-side.js';
import { measureTelemetry } from './telemetry/telemetry.js';
import { measureTurnLatency } from './turn-latency/turn-latency.js';
import { measureRetention } from './retention-report.js';
import { measureSubAgentStep } from './sub-agent-step.js';
import { measureWakeLatencies } from './wake-latency.js';

/** Tool steps of the measured session (plus one final text step). */
const STEPS = 200;
const WARM_UP_STEPS = 20;
const WINDOW = 10;
/** Warm window of the main executor: longer than any wake measurement. */
const WARM_WINDOW_MS = 5 * 60_000;
/** Warm window of the executor whose runs park (resume measurement). */
const PARKING_WARM_WINDOW_MS = 200;

async function timeBareSteps(count: number, workflowId: string): Promise<{ wallMs: number; stepStarts: number[] }> {
  const startedAt = performance.now();
  // DBOS needs the registered (decorated) static method itself, not a wrapper.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const handle = await DBOS.startWorkflow(BareStepWorkflows.run, { workflowID: workflowId })(count);
  await handle.getResult();
  return { wallMs: performance.now() - startedAt, stepStarts: await stepStarts(workflowId, 'BareStep') };
}

/** Everything measured inside this process: the step costs and the HITL latencies. */
async function measureInProcess(database: BenchDatabase): Promise<void> {
  const scale = hitlBenchScale();
  const stateStore = new PostgresStateStore({ connectionString: database.url });
  const streamManager = new PostgresStreamManager({ connectionString: database.url });
  const usageStore = new PostgresUsageStore({ connectionString: database.url });
  let launched = false;
  try {
    await stateStore.migrate();
    const llmAdapter = createBenchModel(STEPS);
    // Both bind the same dependencies; they differ only in how long a human-in-the-loop wait stays warm.
    const executor = new DBOSAgentExecutor({ stateStore, streamManager, usageStore, llmAdapter, hitlWarmWindowMs: WARM_WINDOW_MS });
    const parkingExecutor = new DBOSAgentExecutor({ stateStore, streamManager, usageStore, llmAdapter, hitlWarmWindowMs: PARKING_WARM_WINDOW_MS });
    void BareStepWorkflows;
    void RecvBaselineWorkflows;
    DBOS.setConfig({ name: 'helix-agents-bench', systemDatabaseUrl: withSessionTimeouts(database.url), applicationVersion: 'bench', logLevel: 'warn' });
    await DBOS.launch();
    launched = true;
    process.stdout.write(`Postgres: ${database.description}. Warming up…\n`);

    const agent = createBenchAgent(STEPS + 1);
    const warmUpAgent = createBenchAgent(WARM_UP_STEPS);
    await timeBareSteps(WARM_UP_STEPS + 1, 'bench-bare-warm-up');
    await executor.execute(warmUpAgent, 'Go.', { sessionId: 'bench-warm-up' }).then((handle) => handle.result());

    process.stdout.write(`Measuring ${STEPS} bare DBOS steps and a ${STEPS}-step agent session…\n\n`);
    const bare = await timeBareSteps(STEPS + 1, 'bench-bare');
    const loop = await timeAgentRun(executor, agent, 'bench-session');

    const bareStepMs = averageStepMs(bare.stepStarts, 1, STEPS);
    const agentStepMs = averageStepMs(loop.stepStarts, 1, STEPS);
    const early = averageStepMs(loop.stepStarts, 1, WINDOW);
    const late = averageStepMs(loop.stepStarts, STEPS - WINDOW + 1, STEPS);
    const ms = (value: number): string => value.toFixed(2);
    const ratio = (value: number): string => `${value.toFixed(2)}x`;
    process.stdout.write(
      `${formatTable(
        ['measure', 'value'],
        [
          [`agent step, our loop (LLM step + no-op tool step + commit), ms, mean of ${STEPS}`, ms(agentStepMs)],
          [`bare DBOS step (trivial @DBOS.step), ms, mean of ${STEPS}`, ms(bareStepMs)],
          ['ratio agent step / bare DBOS step', ratio(agentStepMs / bareStepMs)],
          ['ratio agent step / 3 bare DBOS steps (its 3 durable steps)', ratio(agentStepMs / (3 * bareStepMs))],
          [`session steps 1-${WINDOW}, ms per step`, ms(early)],
          [`session steps ${STEPS - WINDOW + 1}-${STEPS}, ms per step`, ms(late)],
          [`ratio steps ${STEPS - WINDOW + 1}-${STEPS} / steps 1-${WINDOW} (flat history cost: near 1)`, ratio(late / early)],
          [`wall clock: ${STEPS + 1}-step agent run / ${STEPS + 1} bare steps, ms`, `${loop.wallMs.toFixed(0)} / ${bare.wallMs.toFixed(0)}`],
        ],
      )}\n`,
    );
    process.stdout.write('\nStep times are start-to-start intervals: of the bare steps as DBOS recorded them (DBOS.listWorkflowSteps), of the agent loop from its model calls; the agent loop also writes usage rows and stream chunks.\n');

    const delegation = await measureSubAgentStep(executor, scale.latencySamples);
    process.stdout.write(
      `\n${formatTable(
        ['agent step (LLM step 1 start → LLM step 2 start)', 'p50 ms', 'p95 ms'],
        [
          ['calls one sub-agent (child run: one LLM step that answers)', ms(delegation.subAgentStep.p50), ms(delegation.subAgentStep.p95)],
          ['calls one no-op tool', ms(delegation.toolStep.p50), ms(delegation.toolStep.p95)],
          ['ratio sub-agent step / tool step', ratio(delegation.subAgentStep.p50 / delegation.toolStep.p50), ratio(delegation.subAgentStep.p95 / delegation.toolStep.p95)],
        ],
      )}\n`,
    );

    const retention = await measureRetention(executor, database.url);
    const kib = (bytes: number): string => (bytes / 1024).toFixed(1);
    process.stdout.write(
      `\nRetention (executor.pruneFinishedSessions({ olderThanMs: 0 }) over the ${retention.pruned.sessions} finished sessions so far: ${retention.pruned.chunksDeleted} chunks, ${retention.pruned.workflowsDeleted} DBOS workflows):\n\n${formatTable(
        ['live bytes (sum of row sizes)', 'before KiB', 'after KiB', 'reclaimed KiB'],
        [
          ['stream chunks', kib(retention.chunkBytes.before), kib(retention.chunkBytes.after), kib(retention.chunkBytes.before - retention.chunkBytes.after)],
          ['DBOS system tables', kib(retention.dbosBytes.before), kib(retention.dbosBytes.after), kib(retention.dbosBytes.before - retention.dbosBytes.after)],
        ],
      )}\n`,
    );

    const samples = scale.latencySamples;
    process.stdout.write(
      `\nMeasuring human-in-the-loop latencies over ${samples} sessions each (step 1 calls a client tool, step 2 answers; ${PARKING_WARM_WINDOW_MS} ms warm window for the parked ones)…\n\n`,
    );
    const hitl = createHitlAgent();
    const wake = await measureWakeLatencies(executor, hitl, samples);
    const resume = await measureResumeLatencies(parkingExecutor, { hitl, answer: createAnswerAgent() }, samples);
    process.stdout.write(`${formatLatencyTable(wake, resume)}\n`);
    process.stdout.write(
      '\nWakes start once the workflow is blocked in DBOS.recv; "DBOS.recv returned" is the completion time DBOS recorded for the recv (the first durable progress after the wake). Completion is when handle.result() resolved in this process.\n',
    );
  } finally {
    if (launched) await DBOS.shutdown();
    await Promise.allSettled([stateStore.close(), streamManager.close(), usageStore.close()]);
  }
}

/** The idle footprint of waiting sessions, each scenario in its own child process and database. */
async function measureFootprints(database: BenchDatabase): Promise<void> {
  const { footprintSessions, quietWindowMs, settleMs, startConcurrency } = hitlBenchScale();
  process.stdout.write(
    `\nMeasuring idle footprint in child processes: ${footprintSessions} sessions waiting warm (15 min window; with a 0-session child alongside as the baseline), then ${footprintSessions} parked (200 ms window). Started ${startConcurrency} at a time; ${settleMs / 1000} s settle, then a ${quietWindowMs / 1000} s quiet window without submissions…\n\n`,
  );
  const [none, warm] = await Promise.all([measureFootprint(database, 'none'), measureFootprint(database, 'warm')]);
  const parked = await measureFootprint(database, 'parked');
  process.stdout.write(`${formatFootprintTable({ none, warm, parked })}\n`);
  process.stdout.write(
    "\nIdle transactions: Δ sum(xact_commit + xact_rollback) of the child's own database in pg_stat_database over the quiet window, per second (an autocommit statement is one transaction). RSS via process.memoryUsage() after global.gc(); RSS keeps what the start-up burst allocated, the V8 heap shows what stays live.\n",
  );
}

async function main(): Promise<void> {
  const database = await openBenchDatabase();
  try {
    if (process.env.HELIX_BENCH_ONLY === 'persistent') {
      await measurePersistentSessions(database);
      return;
    }
    if (process.env.HELIX_BENCH_ONLY === 'turn-latency') {
      await measureTurnLatency(database);
      return;
    }
    if (process.env.HELIX_BENCH_ONLY === 'fleet') {
      await measureFleet(database);
      return;
    }
    if (process.env.HELIX_BENCH_ONLY === 'telemetry') {
      await measureTelemetry(database);
      return;
    }
    await measureSideBySide(database);
    if (process.env.HELIX_BENCH_ONLY === 'side-by-side') return;
    await measureTurnLatency(database);
    process.stdout.write('\n');
    await measureInProcess(database);
    await measureFootprints(database);
    await measurePersistentSessions(database);
    await measureTelemetry(database);
    await measureFleet(database);
  } finally {
    await database.close();
  }
}

/** Exit once stdout has drained (pipes are asynchronous on some platforms). */
const exitAfterFlush = (code: number): void => void process.stdout.write('', () => process.exit(code));
main().then(
  () => exitAfterFlush(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    exitAfterFlush(1);
  },
);

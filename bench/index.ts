/**
 * `npm run bench`: what an agent step of our durable loop costs next to DBOS's own floor, and whether a
 * step late in a long session costs the same as an early one. One process, one Postgres, one run; prints a
 * table and asserts nothing.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { DBOSAgentExecutor, PostgresStateStore, PostgresStreamManager, PostgresUsageStore } from '../src/index.js';
import { withSessionTimeouts } from '../examples/demo/app-config.js';
import { formatTable } from '../examples/demo/format-table.js';
import { averageStepMs, createBenchAgent, createBenchModel, stepStarts, timeAgentRun } from './agent-loop.js';
import { BareStepWorkflows } from './bare-steps.workflow.js';
import { openBenchDatabase } from './bench-database.js';

/** Tool steps of the measured session (plus one final text step). */
const STEPS = 200;
const WARM_UP_STEPS = 20;
const WINDOW = 10;

async function timeBareSteps(count: number, workflowId: string): Promise<{ wallMs: number; stepStarts: number[] }> {
  const startedAt = performance.now();
  // DBOS needs the registered (decorated) static method itself, not a wrapper.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const handle = await DBOS.startWorkflow(BareStepWorkflows.run, { workflowID: workflowId })(count);
  await handle.getResult();
  return { wallMs: performance.now() - startedAt, stepStarts: await stepStarts(workflowId, 'BareStep') };
}

async function main(): Promise<void> {
  const database = await openBenchDatabase();
  const stateStore = new PostgresStateStore({ connectionString: database.url });
  const streamManager = new PostgresStreamManager({ connectionString: database.url });
  const usageStore = new PostgresUsageStore({ connectionString: database.url });
  let launched = false;
  try {
    await stateStore.migrate();
    const executor = new DBOSAgentExecutor({ stateStore, streamManager, usageStore, llmAdapter: createBenchModel(STEPS) });
    void BareStepWorkflows;
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
    process.stdout.write('\nStep times are start-to-start intervals recorded by DBOS (DBOS.listWorkflowSteps); the agent loop also writes usage rows and stream chunks.\n');
  } finally {
    if (launched) await DBOS.shutdown();
    await Promise.allSettled([stateStore.close(), streamManager.close(), usageStore.close()]);
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

/**
 * The worker process of `npm run example:fleet` (spawned by examples/fleet.ts, which passes the database URL in
 * `FLEET_DATABASE_URL`). A worker runs agents: it registers them and constructs an executor WITH an llmAdapter before
 * `DBOS.launch()` (so runs it recovers find their agent), registers the queue after launch, then runs whatever DBOS
 * dequeues for it until SIGTERM, SIGINT or its parent going away; then it shuts down cleanly.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { DBOSAgentExecutor, PostgresStateStore, PostgresStreamManager, registerAgent } from '../../src/index.js';
import { FLEET_DATABASE_URL_ENV, FLEET_EXECUTOR_IDS, FLEET_QUEUE, fleetDBOSConfig, weatherAgent } from './fleet-app.js';
import { createFleetModel } from './fleet-model.js';

/** How many runs this worker executes at once (DBOS's `workerConcurrency` of the queue). */
const WORKER_CONCURRENCY = 2;

const say = (text: string): void => void process.stdout.write(`  [worker ${FLEET_EXECUTOR_IDS.worker}] ${text}\n`);

async function main(): Promise<void> {
  const databaseUrl = process.env[FLEET_DATABASE_URL_ENV];
  if (databaseUrl === undefined || databaseUrl === '') throw new Error(`${FLEET_DATABASE_URL_ENV} is not set: start the fleet with npm run example:fleet`);
  const stateStore = new PostgresStateStore({ connectionString: databaseUrl });
  const streamManager = new PostgresStreamManager({ connectionString: databaseUrl });
  registerAgent(weatherAgent);
  const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter: createFleetModel() });
  DBOS.setConfig({ ...fleetDBOSConfig(databaseUrl), executorID: FLEET_EXECUTOR_IDS.worker });
  await DBOS.launch();
  try {
    await DBOS.registerQueue(FLEET_QUEUE, { minPollingIntervalMs: 20, workerConcurrency: WORKER_CONCURRENCY });
    say(`ready: pid ${process.pid}, queue "${FLEET_QUEUE}", ${WORKER_CONCURRENCY} runs at a time`);
    process.send?.('ready');
    await stopRequested();
    say('stopping');
  } finally {
    await executor.close();
    await DBOS.shutdown();
    await Promise.allSettled([stateStore.close(), streamManager.close()]);
    if (process.connected) process.disconnect(); // the IPC channel would keep this process alive
  }
}

/** Resolves on SIGTERM or SIGINT, or when the parent process goes away (its IPC channel closes). */
async function stopRequested(): Promise<void> {
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
    process.once('disconnect', () => resolve());
  });
}

main().then(
  () => void (process.exitCode = 0),
  (error: unknown) => {
    process.stderr.write(`fleet worker failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);

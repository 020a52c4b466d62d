/**
 * `npm run example:fleet`: agent runs on a DBOS queue, across two processes on one Postgres (embedded, or
 * DATABASE_URL). This process is the API process: its executor has no llmAdapter (it only enqueues) and its DBOS
 * listens to no queue (it never runs an agent). It spawns one worker process (examples/fleet/worker.ts) that registers
 * the queue and the agent with a scripted model and runs what is enqueued. The API process enqueues three sessions,
 * prints each run's stream as it arrives (read from Postgres) and its result (from DBOS), then shuts everything down.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { DBOSAgentExecutor, PostgresStateStore, PostgresStreamManager, type AgentExecutionHandle } from '../src/index.js';
import { openDemoDatabase } from './demo/demo-database.js';
import { StreamPrinter } from './demo/stream-printer.js';
import { FLEET_EXECUTOR_IDS, FLEET_QUEUE, fleetDBOSConfig, weatherAgent } from './fleet/fleet-app.js';
import { spawnFleetWorker, type FleetWorker } from './fleet/spawn-worker.js';

const QUESTIONS = ['What is the weekend weather in Lisbon?', 'What is the weekend weather in Porto?', 'What is the weekend weather in Oslo?'];

const say = (text = ''): void => void process.stdout.write(`${text}\n`);

async function main(): Promise<number> {
  say('helix-agents-dbos fleet: an API process enqueues agent runs on a DBOS queue; a worker process runs them');
  const database = await openDemoDatabase();
  say(`  postgres: ${database.source}; API process pid ${process.pid} (DBOS executor ${FLEET_EXECUTOR_IDS.api})`);
  const stateStore = new PostgresStateStore({ connectionString: database.url });
  const streamManager = new PostgresStreamManager({ connectionString: database.url });
  let executor: DBOSAgentExecutor | undefined;
  let worker: FleetWorker | undefined;
  let launched = false;
  let code = 1;
  try {
    await stateStore.migrate();
    // No llmAdapter: this executor only enqueues (an agent without a queue would be refused with NO_LLM_ADAPTER).
    executor = new DBOSAgentExecutor({ stateStore, streamManager });
    // listenQueues: [] — this process never dequeues a run. Same name and applicationVersion as the worker.
    DBOS.setConfig({ ...fleetDBOSConfig(database.url), executorID: FLEET_EXECUTOR_IDS.api, listenQueues: [] });
    await DBOS.launch();
    launched = true;
    worker = await spawnFleetWorker(database.url);

    const stamp = Date.now();
    const handles: Array<AgentExecutionHandle<unknown>> = [];
    for (const [index, question] of QUESTIONS.entries()) {
      const handle = await executor.execute(weatherAgent, question, { sessionId: `fleet-${stamp}-${index + 1}` });
      say(`API: enqueued ${handle.sessionId} on queue "${FLEET_QUEUE}" (workflow ${handle.workflowId})`);
      handles.push(handle);
    }
    // The three runs proceed on the worker at once; their streams are read here one after the other.
    let failures = 0;
    for (const [index, handle] of handles.entries()) {
      say(`\nYou (${handle.sessionId}): ${QUESTIONS[index] ?? ''}`);
      const printer = new StreamPrinter((text) => void process.stdout.write(text));
      const stepsSeen = new Set<number>();
      for await (const chunk of handle.stream()) {
        // A worker's first model call in a run it did not start resets the step; nothing of it was shown yet to discard.
        if (chunk.type === 'step_reset' && !stepsSeen.has(chunk.step)) continue;
        stepsSeen.add(chunk.step);
        printer.print(chunk);
      }
      printer.end();
      const result = await handle.result();
      const ranOn = (await DBOS.getWorkflowStatus(handle.workflowId))?.executorId ?? 'unknown';
      say(`Result: ${result.status} after ${result.stepCount} steps, run by ${ranOn}: ${JSON.stringify(result.output)}`);
      if (result.status !== 'completed') failures += 1;
    }
    say();
    code = failures === 0 ? 0 : 1;
  } finally {
    // Shutdown order: this executor, the worker (it finishes and shuts down on SIGTERM), DBOS, the stores, Postgres.
    await executor?.close();
    const workerExit = await worker?.stop();
    if (workerExit !== undefined) say(`Worker exited with code ${String(workerExit)}.`);
    if (workerExit !== undefined && workerExit !== 0) code = 1;
    if (launched) await DBOS.shutdown();
    await Promise.allSettled([stateStore.close(), streamManager.close()]);
    await database.stop();
  }
  return code;
}

// No process.exit: after the shutdown above nothing keeps the process alive, so it exits (with this code) by itself.
main().then(
  (code) => void (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`fleet example failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);

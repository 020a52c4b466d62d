/**
 * `npm start`: a trip-planner agent run as a DBOS durable workflow on Postgres (embedded, or DATABASE_URL).
 * It streams the run to the terminal, then prints what Postgres durably holds about it. Kill it mid-run and
 * start it again with the same `--session`: DBOS recovers the run and finishes it without repeating the
 * steps that had completed. See `npm start -- --help`.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { DBOSAgentExecutor, PostgresStateStore, PostgresStreamManager, PostgresUsageStore, registerAgent } from '../src/index.js';
import { demoDBOSConfig, DEMO_APPLICATION_VERSION } from './demo/app-config.js';
import { openDemoDatabase, type DemoDatabase } from './demo/demo-database.js';
import { chooseDemoModel } from './demo/demo-model.js';
import { DEMO_USAGE, parseDemoOptions, type DemoOptions } from './demo/demo-options.js';
import { renderDurableRecord } from './demo/durable-record.js';
import { StreamPrinter } from './demo/stream-printer.js';
import { ToolExecutionLog } from './demo/tool-execution-log.js';
import { createTripAgent, TRIP_QUESTION, type TripState } from './demo/trip-agent.js';

const say = (text = ''): void => void process.stdout.write(`${text}\n`);

async function main(options: DemoOptions): Promise<number> {
  const startedAt = Date.now();
  const model = await chooseDemoModel(process.env);
  say('helix-agents-dbos demo: an agent loop as a DBOS durable workflow on Postgres');
  say(`  model:    ${model.description}`);
  say(`  session:  ${options.sessionId}   (pid ${process.pid}; to drill a crash: kill -9 ${process.pid} mid-run,`);
  say(`            then: npm start -- --session ${options.sessionId})`);

  const database = await openDemoDatabase();
  say(`  postgres: ${describeDatabase(database)}; DBOS applicationVersion ${DEMO_APPLICATION_VERSION}`);
  const stateStore = new PostgresStateStore({ connectionString: database.url });
  const streamManager = new PostgresStreamManager({ connectionString: database.url });
  const usageStore = new PostgresUsageStore({ connectionString: database.url });
  const toolLog = new ToolExecutionLog(database.url);
  let executor: DBOSAgentExecutor | undefined;
  let launched = false;
  try {
    await stateStore.migrate();
    await toolLog.migrate();

    // Start-up order: register the agent and construct the executor BEFORE DBOS.launch(), so a run this
    // process recovers at launch finds its tools and step dependencies.
    const agent = createTripAgent({ log: toolLog, slowToolMs: options.slowToolMs });
    registerAgent(agent);
    executor = new DBOSAgentExecutor({ stateStore, streamManager, usageStore, llmAdapter: model.adapter });
    // Read the session before launch: launch may recover (and even finish) its pending run at once.
    const existing = await stateStore.loadState(options.sessionId);
    if (existing !== null && existing.status !== 'active' && existing.status !== 'completed') {
      say(`\nSession ${options.sessionId} is ${existing.status}; start a new session instead (omit --session).`);
      return 1;
    }
    const liveSince = Date.now();
    DBOS.setConfig(demoDBOSConfig(database.url));
    await DBOS.launch();
    launched = true;

    if (existing?.status === 'completed') {
      say(`\nSession ${options.sessionId} already completed; nothing to recover. Its durable record:\n`);
      say(await renderDurableRecord({ stateStore, usageStore, toolLog }, options.sessionId));
      return 0;
    }
    const recovering = existing !== null;
    say();
    if (recovering) {
      say(`Recovering session ${options.sessionId}: DBOS found its run pending and resumed it at launch.`);
      say('Completed steps return their recorded results; only unfinished work runs again.');
    } else {
      say(`You: ${TRIP_QUESTION}`);
    }

    // A recovered run is observed, never restarted (it may even have finished during launch); execute()
    // covers a crash that came before the run's workflow started, and starts a new session's run.
    const recovered = recovering ? await executor.getHandle(agent, options.sessionId) : null;
    const handle =
      recovered !== null && (await DBOS.getWorkflowStatus(recovered.workflowId)) !== null
        ? recovered
        : await executor.execute(agent, TRIP_QUESTION, { sessionId: options.sessionId });
    const printer = new StreamPrinter((text) => void process.stdout.write(text), recovering ? liveSince : undefined);
    for await (const chunk of handle.stream()) printer.print(chunk);
    printer.end();

    const result = await handle.result();
    say(`\nRun ${result.runId}: ${result.status} (${result.completionReason}) after ${result.stepCount} steps`);
    if (result.error !== undefined) say(`Error: ${result.error}`);
    if (result.output !== undefined) say(`Structured output:\n${JSON.stringify(result.output, null, 2)}`);
    const state = (await handle.getState())?.customState as TripState | undefined;
    if (state !== undefined) say(`Agent state: ${JSON.stringify(state)}`);

    say();
    say(await renderDurableRecord({ stateStore, usageStore, toolLog }, options.sessionId));
    say(`\nDone in ${((Date.now() - startedAt) / 1000).toFixed(1)} s.`);
    return result.status === 'completed' ? 0 : 1;
  } finally {
    // Shutdown order: executor.close(), DBOS.shutdown(), then the stores — the process then exits by itself.
    await executor?.close();
    if (launched) await DBOS.shutdown();
    await Promise.allSettled([stateStore.close(), streamManager.close(), usageStore.close(), toolLog.close()]);
    await database.stop();
  }
}

function describeDatabase(database: DemoDatabase): string {
  if (database.source === 'DATABASE_URL') return 'DATABASE_URL';
  return `${database.source}${database.dataDir === undefined ? '' : ` (data in ${database.dataDir}/, kept between runs)`}`;
}

let options: DemoOptions;
try {
  options = parseDemoOptions(process.argv.slice(2), process.env);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(2);
}
if (options.help) {
  say(DEMO_USAGE);
  process.exit(0);
}
// Ctrl-C mid-run behaves like a crash on purpose: the run stays pending in Postgres for the next start.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stdout.write(`\nStopped (${signal}). The run stays pending in Postgres; recover it with: npm start -- --session ${options.sessionId}\n`);
    process.exit(130);
  });
}
// No process.exit: after the shutdown above nothing keeps the process alive, so it exits (with this code) by itself.
main(options).then(
  (code) => void (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);

/**
 * Child process of `npm run bench`'s fleet part: `node --import tsx bench/fleet/fleet-child.ts` with
 * `FLEET_CHILD_CONFIG` (fleet-protocol.ts) naming its role, database and DBOS executor id. A `local` child is
 * today's single-process executor (agents without a queue, runs started in place); an `api` child has an executor
 * without llmAdapter and a DBOS that listens to no queue (it only enqueues and awaits results); a `worker` registers
 * the agents before `DBOS.launch()` and the queue after it, and runs what it dequeues. Each says it is ready, then
 * answers the parent's commands (fleet-protocol.ts) one at a time until told to exit.
 */
import { createInterface } from 'node:readline';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { DBOSAgentExecutor, PostgresStateStore, PostgresStreamManager, registerAgent } from '../../src/index.js';
import { createFleetAgents, createFleetModel, FLEET_BENCH_QUEUE, fleetBenchDBOSConfig, ToolCallCounter } from './fleet-app.js';
import { FLEET_PROTOCOL, type FleetChildConfig, type FleetCommand, type FleetReply } from './fleet-protocol.js';
import { runBurst, runLatencies } from './fleet-runs.js';
import { fleetScale } from './fleet-scale.js';

function readConfig(): FleetChildConfig {
  const raw = process.env.FLEET_CHILD_CONFIG;
  if (raw === undefined || raw === '') throw new Error('FLEET_CHILD_CONFIG is not set: the fleet benchmark starts this process.');
  return JSON.parse(raw) as FleetChildConfig;
}

async function main(): Promise<void> {
  const config = readConfig();
  const { role, databaseUrl } = config;
  const stateStore = new PostgresStateStore({ connectionString: databaseUrl });
  const streamManager = new PostgresStreamManager({ connectionString: databaseUrl });
  const counter = new ToolCallCounter();
  const agents = createFleetAgents(counter, role !== 'local');
  let launched = false;
  let executor: DBOSAgentExecutor | undefined;
  try {
    await stateStore.migrate();
    if (role === 'worker') {
      registerAgent(agents.steps);
      registerAgent(agents.answer);
    }
    const llmAdapter = role === 'api' ? undefined : createFleetModel(fleetScale().toolSteps);
    executor = new DBOSAgentExecutor({ stateStore, streamManager, ...(llmAdapter === undefined ? {} : { llmAdapter }) });
    DBOS.setConfig({ ...fleetBenchDBOSConfig(databaseUrl, config.executorId), ...(role === 'api' ? { listenQueues: [] } : {}) });
    await DBOS.launch();
    launched = true;
    if (role === 'worker') {
      const { pollingMs, workerConcurrency } = config;
      await DBOS.registerQueue(FLEET_BENCH_QUEUE, { minPollingIntervalMs: pollingMs ?? 10, ...(workerConcurrency === undefined ? {} : { workerConcurrency }) });
    }
    await serve(executor, agents, counter, role);
  } finally {
    await executor?.close();
    if (launched) await DBOS.shutdown();
    await Promise.allSettled([stateStore.close(), streamManager.close()]);
  }
}

/** Answer the parent's commands until it says exit. */
async function serve(executor: DBOSAgentExecutor, agents: ReturnType<typeof createFleetAgents>, counter: ToolCallCounter, role: FleetChildConfig['role']): Promise<void> {
  const reply = (message: FleetReply): void => void process.stdout.write(FLEET_PROTOCOL.line(message));
  let cpuSince = process.cpuUsage();
  reply({ type: 'ready' });
  for await (const line of createInterface({ input: process.stdin })) {
    const command = FLEET_PROTOCOL.read<FleetCommand>(line);
    if (command === undefined) continue;
    if (command.type === 'exit') return;
    if (command.type !== 'counts' && role === 'worker') throw new Error(`A worker cannot run "${command.type}": the API process starts runs.`);
    if (command.type === 'counts' && role === 'api') throw new Error('The API process runs no tools: ask the workers for their counts.');
    switch (command.type) {
      case 'burst':
        reply({ type: 'burst', ...(await runBurst(executor, agents, command)) });
        break;
      case 'latency':
        reply({ type: 'latency', samples: await runLatencies(executor, agents, command.label, command.samples) });
        break;
      case 'counts': {
        const used = process.cpuUsage(cpuSince);
        cpuSince = process.cpuUsage();
        reply({ type: 'counts', toolCalls: counter.take(command.label), cpuMs: (used.user + used.system) / 1_000 });
        break;
      }
    }
  }
  throw new Error('The parent closed stdin before telling the child to exit.');
}

/** Why the child failed, on stderr; its exit code. */
function reportFailure(error: unknown): number {
  process.stderr.write(`fleet child failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 1;
}

// Exit once stdout has drained (pipes are asynchronous on some platforms).
void main()
  .then(() => 0, reportFailure)
  .then((code) => process.stdout.write('', () => process.exit(code)));

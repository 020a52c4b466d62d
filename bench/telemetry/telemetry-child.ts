/**
 * Child process of `npm run bench`'s telemetry-overhead part: `node --expose-gc --import tsx
 * bench/telemetry/telemetry-child.ts <configuration>[,<configuration>…]` with `BENCH_DATABASE_URL` set to a fresh
 * database of its own. Sets up ours (`DBOSAgentExecutor`, `PostgresStateStore` and `PostgresStreamManager` on DBOS's
 * system database, the bench's scripted model), runs unmeasured warm-up runs, says it is ready; then, on the parent's
 * commands (telemetry-protocol.ts), measures one run under the configuration asked, and exits when told.
 *
 * Hosting one configuration, the executor is constructed with that `telemetry` option. Hosting several, it is
 * constructed with `telemetry: false` and, before each run, the process's telemetry is replaced by the one the
 * executor's constructor builds from the option (`useTelemetry(new AgentTelemetry(option ?? {}))`; nothing runs
 * between runs). Before each run a full GC, so no run collects another's garbage; after it the emitted spans and
 * metric records are counted and dropped, and a run that did not emit what its configuration must fails the child
 * (as does a configuration whose `tracing` is not what it must be: a tracer provider registered globally, say).
 * The SDK is set up only in a child hosting a configuration that uses it.
 */
import { createInterface } from 'node:readline';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { DBOSAgentExecutor, PostgresStateStore, PostgresStreamManager } from '../../src/index.js';
import { AgentTelemetry, telemetry, useTelemetry } from '../../src/telemetry/agent-telemetry.js';
import { withSessionTimeouts } from '../../examples/demo/app-config.js';
import { averageStepMs, createBenchAgent, createBenchModel, timeAgentRun } from '../agent-loop.js';
import { CONFIGURATIONS, emittedAsExpected, needsSdk, telemetryOption, TracingKit, type Emitted, type TelemetryConfigurationName } from './telemetry-configurations.js';
import { TELEMETRY_PROTOCOL, type TelemetryCommand, type TelemetryReply, type TelemetryRunSample } from './telemetry-protocol.js';
import { telemetryScale } from './telemetry-scale.js';

/** What a child without the SDK saw emitted: nothing can reach it. */
const NOTHING: Emitted = { chat: 0, executeTool: 0, invokeAgent: 0, otherSpans: 0, metricRecords: 0 };

/** The configurations named by the child's argument, checked. */
function hostedConfigurations(argument: string | undefined): TelemetryConfigurationName[] {
  const names = (argument ?? '').split(',') as TelemetryConfigurationName[];
  if (names.length > 0 && names.every((name) => Object.hasOwn(CONFIGURATIONS, name))) return names;
  throw new Error(`Usage: BENCH_DATABASE_URL=… node --expose-gc --import tsx bench/telemetry/telemetry-child.ts <${Object.keys(CONFIGURATIONS).join('|')}>[,…]`);
}

async function main(): Promise<void> {
  const hosted = hostedConfigurations(process.argv[2]);
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  if (databaseUrl === undefined) throw new Error('BENCH_DATABASE_URL is not set.');
  const { toolSteps, warmUpRuns } = telemetryScale();
  // The SDK (and its HelixIdGenerator, which sets a process-wide flag) only where a hosted configuration uses it.
  const kit = hosted.some(needsSdk) ? new TracingKit() : undefined;
  const stateStore = new PostgresStateStore({ connectionString: databaseUrl });
  const streamManager = new PostgresStreamManager({ connectionString: databaseUrl });
  const only = hosted.length === 1 ? hosted[0] : undefined;
  const option = only === undefined ? false : telemetryOption(only, kit);
  const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter: createBenchModel(toolSteps), ...(option === undefined ? {} : { telemetry: option }) });
  const telemetries = new Map(hosted.map((name) => [name, only === undefined ? new AgentTelemetry(telemetryOption(name, kit) ?? {}) : telemetry()]));
  const agent = createBenchAgent(toolSteps + 1);
  let launched = false;

  const install = (name: TelemetryConfigurationName): void => {
    const chosen = telemetries.get(name);
    if (chosen === undefined) throw new Error(`This child does not host the "${name}" configuration.`);
    useTelemetry(chosen);
    // The no-op path only while no SDK is registered globally; the bench would measure nothing otherwise.
    const { tracing } = CONFIGURATIONS[name];
    if (telemetry().tracing !== tracing) throw new Error(`The "${name}" configuration ${tracing ? 'does not trace' : 'traces'} in this process.`);
  };
  const measure = async (name: TelemetryConfigurationName, sessionId: string): Promise<TelemetryRunSample> => {
    install(name);
    (globalThis as { gc?: () => void }).gc?.();
    const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
    const cpuBefore = process.cpuUsage();
    const timing = await timeAgentRun(executor, agent, sessionId);
    const cpu = process.cpuUsage(cpuBefore);
    const emitted = kit === undefined ? NOTHING : await kit.take();
    if (!emittedAsExpected(name, emitted, toolSteps)) throw new Error(`Run ${sessionId} (${name}) emitted ${JSON.stringify(emitted)}: not what its configuration must.`);
    const steps = toolSteps + 1;
    return {
      msPerStep: timing.wallMs / steps,
      cpuMsPerStep: (cpu.user + cpu.system) / 1_000 / steps,
      stepIntervalMs: averageStepMs(timing.stepStarts, 1, toolSteps),
      emitted,
      heapMb,
    };
  };
  const reply = (message: TelemetryReply): void => void process.stdout.write(TELEMETRY_PROTOCOL.line(message));
  try {
    await stateStore.migrate();
    DBOS.setConfig({ name: 'helix-agents-bench', systemDatabaseUrl: withSessionTimeouts(databaseUrl), applicationVersion: 'bench', logLevel: 'warn' });
    await DBOS.launch();
    launched = true;
    for (let run = 0; run < warmUpRuns; run += 1) {
      for (const name of hosted) await measure(name, `${name}-warm-up-${run}`);
    }
    reply({ type: 'ready' });
    for await (const line of createInterface({ input: process.stdin })) {
      const command = TELEMETRY_PROTOCOL.read<TelemetryCommand>(line);
      if (command?.type === 'run') reply({ type: 'run', sample: await measure(command.configuration, `${command.configuration}-${command.index}`) });
      if (command?.type === 'exit') return;
    }
    throw new Error('The parent closed stdin before telling the child to exit.');
  } finally {
    if (launched) await DBOS.shutdown();
    await Promise.allSettled([stateStore.close(), streamManager.close(), kit?.close()]);
  }
}

/** Why the child failed, on stderr; its exit code. */
function reportFailure(error: unknown): number {
  process.stderr.write(`telemetry child failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 1;
}

// Exit once stdout has drained (pipes are asynchronous on some platforms).
void main()
  .then(() => 0, reportFailure)
  .then((code) => process.stdout.write('', () => process.exit(code)));

/**
 * `npm run example:telemetry`: one agent run (a tool call, then the answer) traced with OpenTelemetry and exported
 * over OTLP/HTTP to `OTEL_EXPORTER_OTLP_ENDPOINT` (default http://localhost:4318, e.g. Jaeger or an OpenTelemetry
 * Collector). Postgres is `DATABASE_URL`, or the demo's embedded server. The model is scripted unless `OPENAI_API_KEY`
 * is set (then `VercelAIAdapter` + `@ai-sdk/openai`, `OPENAI_MODEL`, default gpt-4o-mini).
 *
 * The OpenTelemetry Node SDK starts first, with `HelixIdGenerator` (the run's spans get their deterministic ids: the
 * session's trace id is `sessionTraceId(sessionId)`, the run's span id `runSpanId(runId)`), and before the executor is
 * constructed (the executor takes its meter then; metrics go to the SDK's default OTLP metric exporter). The SDK is
 * shut down after DBOS, which flushes the spans and metrics still batched. The last lines name the session, run and trace.
 */
import { randomUUID } from 'node:crypto';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { z } from 'zod';
import {
  DBOSAgentExecutor,
  HelixIdGenerator,
  PostgresStateStore,
  PostgresStreamManager,
  VercelAIAdapter,
  defineAgent,
  defineTool,
  registerAgent,
  sessionTraceId,
  withIdleTransactionTimeout,
  type LLMAdapter,
} from '../src/index.js';
import { openDemoDatabase } from './demo/demo-database.js';
import { StreamPrinter } from './demo/stream-printer.js';
import { createFleetModel } from './fleet/fleet-model.js';

const QUESTION = 'What is the weekend weather in Lisbon?';

const getWeather = defineTool({
  name: 'get_weather',
  description: 'Weekend forecast for a city.',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, celsius: city === 'Lisbon' ? 24 : 18, sky: city === 'Lisbon' ? 'sunny' : 'cloudy' }),
});

const weatherAgent = defineAgent({
  name: 'telemetry_weather',
  systemPrompt: 'Answer weather questions briefly. Use get_weather.',
  tools: [getWeather],
  maxSteps: 4,
});

const say = (text = ''): void => void process.stdout.write(`${text}\n`);

/** `OPENAI_API_KEY` set: OpenAI through the Vercel AI SDK; else the scripted model of the fleet example. */
async function chooseModel(): Promise<{ adapter: LLMAdapter; description: string }> {
  const apiKey = process.env.OPENAI_API_KEY;
  if (apiKey === undefined || apiKey === '') return { adapter: createFleetModel(), description: 'scripted model (no OPENAI_API_KEY)' };
  const { createOpenAI } = await import('@ai-sdk/openai');
  const modelId = process.env.OPENAI_MODEL || 'gpt-4o-mini';
  const provider = createOpenAI({ apiKey, ...(process.env.OPENAI_BASE_URL ? { baseURL: process.env.OPENAI_BASE_URL } : {}) });
  return { adapter: new VercelAIAdapter({ model: provider(modelId) }), description: `OpenAI ${modelId} via VercelAIAdapter` };
}

async function main(): Promise<number> {
  // First: the SDK, registered as the global tracer and meter provider. No url: the exporter reads
  // OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces, else localhost:4318.
  const sdk = new NodeSDK({
    serviceName: 'helix-telemetry-example',
    idGenerator: new HelixIdGenerator(),
    traceExporter: new OTLPTraceExporter(),
  });
  sdk.start();
  say('helix-agents-dbos telemetry: one agent run traced with OpenTelemetry, exported over OTLP/HTTP');
  say(`  collector: ${process.env.OTEL_EXPORTER_OTLP_ENDPOINT || 'http://localhost:4318'}`);
  const database = await openDemoDatabase();
  say(`  postgres: ${database.source}`);
  const model = await chooseModel();
  say(`  model: ${model.description}`);
  const stateStore = new PostgresStateStore({ connectionString: database.url });
  const streamManager = new PostgresStreamManager({ connectionString: database.url });
  let executor: DBOSAgentExecutor | undefined;
  let launched = false;
  let code = 1;
  try {
    await stateStore.migrate();
    registerAgent(weatherAgent);
    // telemetry is on by default (the global providers); { captureContent: true } would add prompts and tool I/O.
    executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter: model.adapter });
    DBOS.setConfig({ name: 'helix-telemetry-example', systemDatabaseUrl: withIdleTransactionTimeout(database.url), logLevel: 'warn' });
    await DBOS.launch();
    launched = true;

    const sessionId = `telemetry-${randomUUID()}`;
    say(`\nYou: ${QUESTION}`);
    const handle = await executor.execute(weatherAgent, QUESTION, { sessionId });
    const printer = new StreamPrinter((text) => void process.stdout.write(text));
    for await (const chunk of handle.stream()) printer.print(chunk);
    printer.end();
    const result = await handle.result();
    say(`Result: ${result.status} after ${result.stepCount} steps`);
    say(`\nsession: ${sessionId}`);
    say(`run: ${handle.runId}`);
    say(`trace: ${sessionTraceId(sessionId)}`);
    code = result.status === 'completed' ? 0 : 1;
  } finally {
    // Shutdown order: executor, DBOS, then the SDK (its last collection still reads the open state store: the
    // helix.sessions.waiting_for_human gauge), then the stores and Postgres.
    await executor?.close();
    if (launched) await DBOS.shutdown();
    try {
      await sdk.shutdown(); // flushes what is batched (spans, metrics) to the collector
      say('OpenTelemetry SDK shut down (spans flushed).');
    } catch (error) {
      say(`OpenTelemetry export failed (${error instanceof Error ? error.message : String(error)}): is a collector listening?`);
      code = 1;
    }
    await Promise.allSettled([stateStore.close(), streamManager.close()]);
    await database.stop();
  }
  return code;
}

main().then(
  (code) => void (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`telemetry example failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);

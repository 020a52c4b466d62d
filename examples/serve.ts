/**
 * `npm run serve`: an agent served over HTTP (helix-agents-dbos/server) on 127.0.0.1:3000, backed by DBOS on
 * Postgres (embedded, or DATABASE_URL). Executor routes (`/start`, `/sse`, `/status`, …) and the AI SDK chat
 * routes (`/chat`, what `useChat` speaks), the console's JSON API (`/console/api/…`: sessions, runs, steps, human
 * waits, usage, and actions on them) and its web UI at `/console/` (after `npm run build`). Requests need `Authorization: Bearer $SERVE_TOKEN` (default
 * `dev-token`). Without OPENAI_API_KEY a scripted model answers. `npm run serve -- --once` starts, makes
 * one run through HTTP, prints it and exits (a smoke test).
 */
import { createServer } from 'node:http';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { z } from 'zod';
import { DBOSAgentExecutor, defineAgent, defineTool, PostgresStateStore, PostgresStreamManager, PostgresUsageStore, registerAgent, VercelAIAdapter, type LLMAdapter } from '../src/index.js';
import { createAgentServer, createHttpAdapter } from '../src/server/index.js';
import { MockLLMAdapter } from '../src/testing/index.js';
import { openDemoDatabase } from './demo/demo-database.js';

const PORT = Number(process.env.PORT ?? 3000);
const TOKEN = process.env.SERVE_TOKEN ?? 'dev-token';
const once = process.argv.includes('--once');

const weather = defineTool({
  name: 'get_weather',
  description: 'Forecast for a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, celsius: 21 }),
});
const assistant = defineAgent({ name: 'assistant', systemPrompt: 'Answer briefly. Use get_weather for forecasts.', tools: [weather], maxSteps: 5 });

async function chooseModel(): Promise<LLMAdapter> {
  if (process.env.OPENAI_API_KEY === undefined || process.env.OPENAI_API_KEY === '') {
    return new MockLLMAdapter((input) =>
      input.messages.some((message) => message.role === 'tool')
        ? { type: 'text', text: 'It will be 21 °C in Lisbon: a good day for a walk.', chunkDelayMs: 30 }
        : { type: 'tool_calls', text: 'Let me check the forecast.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Lisbon' } }] },
    );
  }
  const { createOpenAI } = await import('@ai-sdk/openai');
  return new VercelAIAdapter({ model: createOpenAI({ apiKey: process.env.OPENAI_API_KEY })(process.env.OPENAI_MODEL ?? 'gpt-4o-mini') });
}

const database = await openDemoDatabase();
const stateStore = new PostgresStateStore({ connectionString: database.url });
const streamManager = new PostgresStreamManager({ connectionString: database.url });
const usageStore = new PostgresUsageStore({ connectionString: database.url });
await stateStore.migrate();
registerAgent(assistant); // agents and executor before DBOS.launch(): launch recovers pending runs
const executor = new DBOSAgentExecutor({ stateStore, streamManager, usageStore, llmAdapter: await chooseModel() });
DBOS.setConfig({ name: 'helix-agents-serve', systemDatabaseUrl: database.url, applicationVersion: 'helix-serve-1', logLevel: 'warn' });
await DBOS.launch();

const server = createAgentServer({
  executor,
  stateStore,
  streamManager,
  agents: [assistant],
  chat: { agent: assistant },
  console: { path: '/console' }, // the console's JSON API under /console/api, with usage from the usage store
  usageStore,
  // Replace with your real authentication: the principal's id owns the sessions it creates.
  authenticate: (request) => (request.headers.get('authorization') === `Bearer ${TOKEN}` ? { id: 'developer' } : null),
});
const http = createServer(createHttpAdapter(server));
await new Promise<void>((resolve) => http.listen(PORT, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${PORT}`;
console.log(`Agent server on ${base} (Postgres: ${database.source})
  curl -s -X POST ${base}/start -H 'authorization: Bearer ${TOKEN}' -H 'content-type: application/json' \\
       -d '{"agentType":"assistant","sessionId":"s1","input":"Weather in Lisbon?"}'
  curl -N '${base}/sse?sessionId=s1&fromSequence=0' -H 'authorization: Bearer ${TOKEN}'
  curl -s '${base}/status?sessionId=s1' -H 'authorization: Bearer ${TOKEN}'
  useChat: new DefaultChatTransport({ api: '${base}/chat', headers: { authorization: 'Bearer ${TOKEN}' } })
Console on ${base}/console/ (sign in with the token: ${TOKEN}; built by npm run build)
Console API on ${base}/console/api
  curl -s '${base}/console/api/sessions' -H 'authorization: Bearer ${TOKEN}'
  curl -s '${base}/console/api/sessions/s1' -H 'authorization: Bearer ${TOKEN}'`);

async function shutdown(): Promise<void> {
  http.closeAllConnections();
  http.close();
  // Warm persistent sessions end with completion reason `shutdown` (their next message restarts them).
  await executor.close({ timeoutMs: 10_000 });
  await DBOS.shutdown();
  await Promise.allSettled([stateStore.close(), streamManager.close(), usageStore.close()]);
  await database.stop();
}

if (once) {
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const sessionId = `serve-${Date.now()}`;
  const started = await fetch(`${base}/start`, { method: 'POST', headers, body: JSON.stringify({ agentType: 'assistant', sessionId, input: 'Weather in Lisbon?' }) });
  const { startSequence } = (await started.json()) as { startSequence: number };
  const events = await (await fetch(`${base}/sse?sessionId=${sessionId}&fromSequence=${startSequence}`, { headers })).text();
  const text = [...events.matchAll(/^data: (.*)$/gm)]
    .map((match) => JSON.parse(match[1]!) as { type: string; delta?: string })
    .filter((chunk) => chunk.type === 'text_delta')
    .map((chunk) => chunk.delta)
    .join('');
  // The stream ends just before the run records its outcome: wait for it.
  let status = { status: 'active' };
  for (let attempt = 0; attempt < 50 && status.status === 'active'; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = (await (await fetch(`${base}/status?sessionId=${sessionId}`, { headers })).json()) as { status: string };
  }
  console.log(`POST /start → ${started.status}; streamed text: ${JSON.stringify(text)}; status: ${status.status}`);
  const page = (await (await fetch(`${base}/console/api/sessions/${sessionId}`, { headers })).json()) as { runs: unknown[]; history: { steps: unknown[] }; usage: { session: { totalTokens: number } } | null };
  console.log(`GET /console/api/sessions/${sessionId} → ${page.runs.length} run, ${page.history.steps.length} steps, ${page.usage?.session.totalTokens ?? 0} tokens`);
  await shutdown();
} else {
  // No process.exit: once shut down, nothing keeps the process alive.
  process.once('SIGINT', () => void shutdown());
}

/**
 * `npx tsx examples/remote-sub-agent.ts`: a coordinator delegates to an agent on an agent server over HTTP
 * (createRemoteSubAgentTool + HttpRemoteAgentTransport). For a self-contained run, the "remote" AgentServer is
 * served by this same process on 127.0.0.1:$PORT (default 3001); in production it is another service with its own
 * database, and only `url` and the bearer token change. Postgres is embedded (or DATABASE_URL); without
 * OPENAI_API_KEY a scripted model answers. Prints the remote agent's chunks as the parent's stream carries them,
 * then the coordinator's output.
 */
import { createServer } from 'node:http';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { z } from 'zod';
import {
  createRemoteSubAgentTool,
  DBOSAgentExecutor,
  defineAgent,
  HttpRemoteAgentTransport,
  PostgresStateStore,
  PostgresStreamManager,
  registerAgent,
  VercelAIAdapter,
  type LLMAdapter,
} from '../src/index.js';
import { createAgentServer, createHttpAdapter } from '../src/server/index.js';
import { MockLLMAdapter } from '../src/testing/index.js';
import { openDemoDatabase } from './demo/demo-database.js';

const PORT = Number(process.env.PORT ?? 3001);
const TOKEN = process.env.SERVE_TOKEN ?? 'dev-token';
const REMOTE_URL = `http://127.0.0.1:${PORT}`;

// The remote service's agent (served by the AgentServer below).
const researcher = defineAgent({ name: 'researcher', systemPrompt: 'Research the task you are given; answer in one sentence.', maxSteps: 3 });

// The parent: its tool talks to the remote AgentServer, authenticated with a bearer token.
const research = createRemoteSubAgentTool({
  agentType: 'researcher',
  description: 'Ask the remote researcher agent.',
  inputSchema: z.object({ task: z.string() }),
  transport: new HttpRemoteAgentTransport({ url: REMOTE_URL, headers: () => ({ authorization: `Bearer ${TOKEN}` }) }),
  streamWindowMs: 5_000, // each window of the remote stream is one checkpointed step
});
const coordinator = defineAgent({ name: 'coordinator', systemPrompt: 'Delegate research with remote__researcher, then summarize.', tools: [research], maxSteps: 4 });

async function chooseModel(): Promise<LLMAdapter> {
  if (process.env.OPENAI_API_KEY === undefined || process.env.OPENAI_API_KEY === '') {
    return new MockLLMAdapter((input) => {
      if (input.agentType === 'researcher') return { type: 'text', text: 'Tides follow the moon.', chunkDelayMs: 20 };
      const result = input.messages.find((message) => message.role === 'tool');
      if (result === undefined) return { type: 'tool_calls', toolCalls: [{ name: 'remote__researcher', arguments: { task: 'Why are there tides?' } }] };
      return { type: 'text', text: `The researcher says: ${String(result.content)}` };
    });
  }
  const { createOpenAI } = await import('@ai-sdk/openai');
  return new VercelAIAdapter({ model: createOpenAI({ apiKey: process.env.OPENAI_API_KEY })(process.env.OPENAI_MODEL ?? 'gpt-4o-mini') });
}

const database = await openDemoDatabase();
const stateStore = new PostgresStateStore({ connectionString: database.url });
const streamManager = new PostgresStreamManager({ connectionString: database.url });
await stateStore.migrate();
registerAgent(researcher);
registerAgent(coordinator); // its remote tool's transport comes back with it when DBOS recovers a run
const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter: await chooseModel() });
DBOS.setConfig({ name: 'helix-agents-remote-example', systemDatabaseUrl: database.url, applicationVersion: 'helix-remote-1', logLevel: 'warn' });
await DBOS.launch();

const server = createAgentServer({
  executor,
  stateStore,
  streamManager,
  agents: [researcher],
  authenticate: (request) => (request.headers.get('authorization') === `Bearer ${TOKEN}` ? { id: 'coordinator-service' } : null),
});
const http = createServer(createHttpAdapter(server));
await new Promise<void>((resolve) => http.listen(PORT, '127.0.0.1', resolve));

try {
  const handle = await executor.execute(coordinator, 'Find out why there are tides.', { sessionId: `remote-example-${Date.now()}` });
  for await (const chunk of handle.stream()) {
    if (chunk.type === 'subagent_start') console.log(`remote session ${chunk.subSessionId} started`);
    if (chunk.type === 'text_delta' && chunk.agentId !== handle.sessionId) process.stdout.write(`[remote] ${chunk.delta}\n`);
  }
  const result = await handle.result();
  console.log(`coordinator: ${result.status}: ${String(result.output)}`);
} finally {
  http.closeAllConnections();
  http.close();
  await executor.close();
  await DBOS.shutdown();
  await Promise.allSettled([stateStore.close(), streamManager.close()]);
  await database.stop();
}

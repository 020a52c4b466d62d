/**
 * The README's example, kept here so `npm test` type-checks and lints it (and checks the README repeats it). Running
 * it needs DATABASE_URL and OPENAI_API_KEY (`npx tsx examples/readme-example.ts`); it shuts down in the documented
 * order, so the process exits by itself.
 */
import { openai } from '@ai-sdk/openai';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { z } from 'zod';
import { DBOSAgentExecutor, defineAgent, defineTool, PostgresStateStore, PostgresStreamManager, registerAgent, VercelAIAdapter, withIdleTransactionTimeout } from '../src/index.js';

const weather = defineTool({ name: 'get_weather', description: 'Forecast for a city', parameters: z.object({ city: z.string() }), execute: async ({ city }) => ({ city, celsius: 21 }) });
const planner = defineAgent({ name: 'planner', systemPrompt: 'Plan city trips.', tools: [weather], outputSchema: z.object({ city: z.string() }) });

const url = withIdleTransactionTimeout(process.env.DATABASE_URL!); // DBOS then skips the SET behind pg's deprecation warning
const stateStore = new PostgresStateStore({ connectionString: url });
const streamManager = new PostgresStreamManager({ connectionString: url });
await stateStore.migrate();
registerAgent(planner); // agents and executor before DBOS.launch(): launch recovers pending runs
const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter: new VercelAIAdapter({ model: openai('gpt-4o-mini') }) });
DBOS.setConfig({ name: 'trips', systemDatabaseUrl: url, applicationVersion: '1.4.0' });
await DBOS.launch();

const handle = await executor.execute(planner, 'Lisbon or Porto this weekend?', { sessionId: 'trip-1' });
for await (const chunk of handle.stream()) if (chunk.type === 'text_delta') process.stdout.write(chunk.delta);
console.log((await handle.result()).output); // { city: 'Lisbon' }

await executor.close(); // this order, and the process exits by itself
await DBOS.shutdown();
await Promise.all([stateStore.close(), streamManager.close()]);

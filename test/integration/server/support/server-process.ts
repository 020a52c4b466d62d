/**
 * A second agent-server process for the two-instance test, run as `node --import tsx server-process.ts`
 * with `HELIX_SERVER_PROCESS={"databaseUrl","port"}` and its own `DBOS__VMID`. It wires the same runtime
 * and agents as the test process on the same database, serves them on 127.0.0.1:`port`, prints
 * `{"event":"listening"}`, and runs until SIGTERM (or its parent goes away). With `remoteUrl` it also serves
 * the coordinator, whose remote tools call the agent server at that URL (the remote sub-agent tests).
 */
import { createServer } from 'node:http';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { DBOSAgentExecutor } from '../../../../src/executor/dbos-agent-executor.js';
import { AgentServer } from '../../../../src/server/agent-server.js';
import { createHttpAdapter } from '../../../../src/server/node-http-adapter.js';
import { registerAgent } from '../../../../src/steps/runtime-registry.js';
import { PostgresStateStore } from '../../../../src/store/postgres/postgres-state-store.js';
import { PostgresStreamManager } from '../../../../src/stream/postgres/postgres-stream-manager.js';
import { coordinatorAgent } from './remote-agents.js';
import { assistant, authenticateBearer, serverTestModel } from './server-agents.js';

const { databaseUrl, port, remoteUrl, lifetimeMs } = JSON.parse(process.env.HELIX_SERVER_PROCESS ?? '{}') as { databaseUrl: string; port: number; remoteUrl?: string; lifetimeMs?: number };
const agents = remoteUrl === undefined ? [assistant] : [assistant, coordinatorAgent(remoteUrl)];
const stateStore = new PostgresStateStore({ connectionString: databaseUrl });
const streamManager = new PostgresStreamManager({ connectionString: databaseUrl });
const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter: serverTestModel(), hitlWarmWindowMs: 30_000 });
for (const agent of agents) registerAgent(agent);
await stateStore.migrate();
DBOS.setConfig({ name: 'helix-test', systemDatabaseUrl: databaseUrl, applicationVersion: 'test', logLevel: 'warn' });
await DBOS.launch();
const server = new AgentServer({ executor, stateStore, streamManager, agents, chat: { agent: assistant }, authenticate: authenticateBearer });
const http = createServer(createHttpAdapter(server));
await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
console.log(JSON.stringify({ event: 'listening', port }));

const stop = async (): Promise<void> => {
  http.closeAllConnections();
  http.close();
  await DBOS.shutdown();
  await Promise.allSettled([stateStore.close(), streamManager.close()]);
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('disconnect', () => void stop());
setTimeout(() => void stop(), lifetimeMs ?? 120_000).unref(); // never outlive a crashed parent for long

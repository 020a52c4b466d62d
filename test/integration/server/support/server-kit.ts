import { createServer, type Server } from 'node:http';
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { LLMAdapter } from '../../../../src/llm/adapter.js';
import { AgentServer } from '../../../../src/server/agent-server.js';
import { createHttpAdapter } from '../../../../src/server/node-http-adapter.js';
import type { AgentServerOptions } from '../../../../src/server/server-options.js';
import { freePort, waitFor } from '../../../support/free-port.js';
import { startTestRuntime, type TestRuntime } from '../../../support/runtime.js';
import { assistant, authenticateBearer, serverTestModel } from './server-agents.js';

/** A launched runtime with an AgentServer on a 127.0.0.1 port. */
export interface ServerKit {
  runtime: TestRuntime;
  server: AgentServer;
  baseUrl: string;
  /** `fetch` against the server as `token`'s principal (no token: unauthenticated). */
  call(path: string, init?: { token?: string; method?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

/** Start DBOS on a fresh database and serve `assistant` (executor and chat routes; `extra.agents` for others) over HTTP. */
export async function startServerKit(
  prefix: string,
  extra: Partial<AgentServerOptions> = {},
  runtimeExtra: Parameters<typeof startTestRuntime>[2] = {},
  llmAdapter: LLMAdapter = serverTestModel(),
): Promise<ServerKit> {
  const runtime = await startTestRuntime(prefix, llmAdapter, { hitlWarmWindowMs: 30_000, ...runtimeExtra });
  const server = new AgentServer({
    executor: runtime.executor,
    stateStore: runtime.stateStore,
    streamManager: runtime.streamManager,
    agents: [assistant],
    chat: { agent: assistant },
    authenticate: authenticateBearer,
    maxBodyBytes: 64 * 1024,
    ...extra,
  });
  const port = await freePort();
  const http: Server = createServer(createHttpAdapter(server));
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    runtime,
    server,
    baseUrl,
    call: (path, init = {}) => {
      const headers: Record<string, string> = { ...(init.headers ?? {}) };
      if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
      const body = init.rawBody ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
      if (body !== undefined) headers['content-type'] = 'application/json';
      return fetch(`${baseUrl}${path}`, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, ...(body === undefined ? {} : { body }) });
    },
    close: async () => {
      // Let short runs the tests left behind finish, so shutdown does not cut their database work.
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline && (await DBOS.listWorkflows({ status: 'PENDING' })).length > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await runtime.shutdown();
    },
  };
}

/** Read an SSE body into `{ id, data }` events until it ends. */
export async function readSse(response: Response): Promise<Array<{ id: number; data: any }>> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.includes('data:'))
    .map((block) => {
      const lines = block.split('\n');
      const id = Number(lines.find((line) => line.startsWith('id:'))?.slice(3).trim());
      const data = JSON.parse(lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('\n'));
      return { id, data };
    });
}

/** A response's JSON body, untyped (tests assert its shape). */
export async function jsonOf(response: Response): Promise<any> {
  return response.json();
}

/** `GET /status` of a session as `token` (default Alice's), parsed. */
export async function statusOf(kit: ServerKit, sessionId: string, token = 'token-alice'): Promise<any> {
  return jsonOf(await kit.call(`/status?sessionId=${encodeURIComponent(sessionId)}`, { token }));
}

/** Poll `GET /status` (Alice's) until `check` holds (30 s at most, then fails naming `what`); the last status. */
export async function waitForStatus(kit: ServerKit, sessionId: string, check: (body: any) => boolean, what: string): Promise<any> {
  let body: any;
  await waitFor(
    async () => {
      body = await statusOf(kit, sessionId);
      return check(body);
    },
    30_000,
    `${sessionId} ${what}`,
  );
  return body;
}

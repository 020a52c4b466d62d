/**
 * The console API tests' server: DBOS on a fresh database, the `desk` agent behind an `AgentServer` with the console
 * enabled and the runtime's usage store, on a 127.0.0.1 port; HTTP helpers that call it as a principal.
 */
import { createServer, type Server } from 'node:http';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { expect } from 'vitest';
import { AgentServer } from '../../../../src/server/agent-server.js';
import { createHttpAdapter } from '../../../../src/server/node-http-adapter.js';
import type { AgentServerOptions } from '../../../../src/server/server-options.js';
import { freePort, waitFor } from '../../../support/free-port.js';
import { startTestRuntime, type TestRuntime } from '../../../support/runtime.js';
import { consoleTestModel, desk } from './console-agents.js';
import { authenticateBearer } from './server-agents.js';

export const ALICE = 'token-alice';
export const BOB = 'token-bob';

/** An answer: HTTP status and JSON body (untyped: tests assert its shape). */
export interface Answer {
  status: number;
  body: any;
}

/** A server listening on a 127.0.0.1 port. */
export interface Listening {
  url: string;
  close(): Promise<void>;
}

/** The launched runtime and the console-enabled server. */
export interface ConsoleKit {
  runtime: TestRuntime;
  url: string;
  /** Call the server as `token`'s principal (no token: unauthenticated); a body makes it a POST. */
  call(path: string, token?: string, body?: unknown): Promise<Answer>;
  /** Serve another `AgentServer` on the same runtime (closed with the kit). */
  serve(options: Partial<AgentServerOptions>): Promise<Listening>;
  close(): Promise<void>;
}

/** Call `url + path` as `token` (a body → POST). */
export async function callAt(url: string, path: string, token?: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${url}${path}`, { method: body === undefined ? 'GET' : 'POST', headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  return { status: response.status, body: text.length === 0 ? null : JSON.parse(text) };
}

async function listen(server: AgentServer): Promise<Listening & { http: Server }> {
  const port = await freePort();
  const http = createServer(createHttpAdapter(server));
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  return {
    http,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** Start DBOS on a fresh database and serve `desk` with the console at `/console` (runs wait warm 30 s for humans unless `hitlWarmWindowMs`). */
export async function startConsoleKit(prefix: string, hitlWarmWindowMs = 30_000): Promise<ConsoleKit> {
  const runtime = await startTestRuntime(prefix, consoleTestModel(), { hitlWarmWindowMs });
  const base: AgentServerOptions = {
    executor: runtime.executor,
    stateStore: runtime.stateStore,
    streamManager: runtime.streamManager,
    agents: [desk],
    authenticate: authenticateBearer,
  };
  const main = await listen(new AgentServer({ ...base, console: {}, usageStore: runtime.usageStore }));
  const others: Listening[] = [];
  return {
    runtime,
    url: main.url,
    call: (path, token, body) => callAt(main.url, path, token, body),
    serve: async (options) => {
      const other = await listen(new AgentServer({ ...base, ...options }));
      others.push(other);
      return other;
    },
    close: async () => {
      // Let short runs the tests left behind finish, so shutdown does not cut their database work.
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline && (await DBOS.listWorkflows({ status: 'PENDING' })).length > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      await Promise.all([main, ...others].map((server) => server.close()));
      await runtime.shutdown();
    },
  };
}

/** Start a session over `POST /start` as `token`. */
export async function startSession(kit: ConsoleKit, sessionId: string, input: string, token = ALICE): Promise<void> {
  const started = await kit.call('/start', token, { agentType: 'desk', sessionId, input });
  expect(started.status).toBe(201);
}

/** The session page as `token`. */
export async function sessionPage(kit: ConsoleKit, sessionId: string, token = ALICE, query = ''): Promise<Answer> {
  return kit.call(`/console/api/sessions/${sessionId}${query}`, token);
}

/** Wait until the session page satisfies `check`, then return it. */
export async function waitForPage(kit: ConsoleKit, sessionId: string, check: (page: any) => boolean, what: string): Promise<any> {
  let page: any;
  await waitFor(
    async () => {
      page = (await sessionPage(kit, sessionId)).body;
      return check(page);
    },
    20_000,
    what,
  );
  return page;
}

/** Wait until the session reads `status` (`completed` by default) with no run still running. */
export async function waitForStatus(kit: ConsoleKit, sessionId: string, status = 'completed'): Promise<any> {
  return waitForPage(kit, sessionId, (page) => page.session?.status === status && page.session.currentRun?.status !== 'running', `${sessionId} ${status}`);
}

/** Wait until the session (or its tree) waits for `count` human answers. */
export async function waitForOpenCalls(kit: ConsoleKit, sessionId: string, count = 1): Promise<any> {
  return waitForPage(kit, sessionId, (page) => page.pendingCalls?.length === count, `${sessionId} waiting for ${count} answer(s)`);
}

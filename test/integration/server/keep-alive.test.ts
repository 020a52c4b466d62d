import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExpressAdapter } from '../../../src/server/express-adapter.js';
import { freePort } from '../../support/free-port.js';
import { startServerKit, type ServerKit } from './support/server-kit.js';

// An answer given before the request body was read (413 over `maxBodyBytes`, 401 from `authenticate`) must
// leave a keep-alive connection usable: the next request on the same agent is answered promptly, on the
// drained connection or on a fresh one, instead of hanging until the server's keep-alive timeout.

let kit: ServerKit;
let express_: Server;
let expressUrl: string;
beforeAll(async () => {
  kit = await startServerKit('server_keep_alive');
  const app = express();
  app.use('/agents', createExpressAdapter(kit.server));
  const port = await freePort();
  express_ = createServer(app);
  await new Promise<void>((resolve) => express_.listen(port, '127.0.0.1', resolve));
  expressUrl = `http://127.0.0.1:${port}/agents`;
});
afterAll(async () => {
  express_?.closeAllConnections();
  await new Promise<void>((resolve) => (express_ === undefined ? resolve() : express_.close(() => resolve())));
  await kit?.close();
});

const ALICE = 'token-alice';
const PROMPT_MS = 2_000;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  reusedSocket: boolean;
  elapsedMs: number;
}

/** One request through `agent`; a chunked body when `chunked`, else with a content-length. Rejects on a reset. */
async function send(agent: Agent, url: string, options: { method?: string; token?: string; body?: Buffer; chunked?: boolean } = {}): Promise<Answer> {
  const began = Date.now();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined && options.chunked !== true) headers['content-length'] = String(options.body.length);
    const request = httpRequest(url, { agent, method: options.method ?? 'GET', headers, timeout: 10_000 });
    request.once('timeout', () => request.destroy(new Error('request timed out')));
    request.once('error', reject);
    request.once('response', (response) => {
      response.resume();
      response.once('error', reject);
      response.once('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, reusedSocket: request.reusedSocket, elapsedMs: Date.now() - began }));
    });
    if (options.body === undefined) request.end();
    else if (options.chunked === true) {
      for (let offset = 0; offset < options.body.length; offset += 16_384) request.write(options.body.subarray(offset, offset + 16_384));
      request.end();
    } else request.end(options.body);
  });
}

/** A JSON /start body of about `bytes` bytes. */
const startBody = (bytes: number): Buffer => Buffer.from(JSON.stringify({ agentType: 'assistant', sessionId: 'keep-alive-1', input: 'x'.repeat(bytes) }));

/** The next request on `agent` after an early answer: answered, and within PROMPT_MS rather than after a reset. */
async function expectPromptFollowUp(agent: Agent, baseUrl: string): Promise<Answer> {
  const next = await send(agent, `${baseUrl}/status?sessionId=never-created`, { token: ALICE }).catch((error: unknown) => ({ error }));
  expect(next, 'the follow-up request failed').not.toHaveProperty('error');
  const answer = next as Answer;
  expect(answer.status).toBe(404);
  expect(answer.elapsedMs, 'the follow-up request waited on the previous body').toBeLessThan(PROMPT_MS);
  return answer;
}

describe.each([
  ['the Node adapter', (): string => kit.baseUrl],
  ['the Express adapter', (): string => expressUrl],
])('keep-alive after an early answer, through %s', (_name, baseUrl) => {
  const fresh = (): Agent => new Agent({ keepAlive: true, maxSockets: 1 });

  it('413 to a 300 KB body with a content-length: the connection is drained and reused', async () => {
    const agent = fresh();
    try {
      const first = await send(agent, `${baseUrl()}/start`, { method: 'POST', token: ALICE, body: startBody(300 * 1024) });
      expect(first.status).toBe(413);
      expect(first.headers.connection).not.toBe('close');
      const next = await expectPromptFollowUp(agent, baseUrl());
      expect(next.reusedSocket).toBe(true);
    } finally {
      agent.destroy();
    }
  });

  it('401 from authenticate to a 300 KB body: the connection is drained and reused', async () => {
    const agent = fresh();
    try {
      const first = await send(agent, `${baseUrl()}/start`, { method: 'POST', body: startBody(300 * 1024) });
      expect(first.status).toBe(401);
      const next = await expectPromptFollowUp(agent, baseUrl());
      expect(next.reusedSocket).toBe(true);
    } finally {
      agent.destroy();
    }
  });

  it('413 to a chunked 300 KB body (read past the limit, then answered): the next request is prompt', async () => {
    const agent = fresh();
    try {
      const first = await send(agent, `${baseUrl()}/start`, { method: 'POST', token: ALICE, body: startBody(300 * 1024), chunked: true });
      expect(first.status).toBe(413);
      await expectPromptFollowUp(agent, baseUrl());
    } finally {
      agent.destroy();
    }
  });

  it('401 to a body too large to drain: the answer says connection: close and the next request opens a fresh connection', async () => {
    const agent = fresh();
    try {
      const first = await send(agent, `${baseUrl()}/start`, { method: 'POST', body: startBody(8 * 1024 * 1024) });
      expect(first.status).toBe(401);
      expect(first.headers.connection).toBe('close');
      const next = await expectPromptFollowUp(agent, baseUrl());
      expect(next.reusedSocket).toBe(false);
    } finally {
      agent.destroy();
    }
  });
});

import { createServer } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentServer } from '../../../src/server/agent-server.js';
import { createExpressAdapter } from '../../../src/server/express-adapter.js';
import { AgentServerAuthConfigurationError } from '../../../src/server/server-errors.js';
import { freePort, waitFor } from '../../support/free-port.js';
import { assistant } from './support/server-agents.js';
import { jsonOf, readSse, startServerKit, type ServerKit } from './support/server-kit.js';

let kit: ServerKit;
beforeAll(async () => {
  kit = await startServerKit('server_routes');
});
afterAll(async () => {
  await kit?.close();
});

const ALICE = 'token-alice';
const BOB = 'token-bob';
const status = async (sessionId: string, token = ALICE): Promise<any> => jsonOf(await kit.call(`/status?sessionId=${sessionId}`, { token }));
const start = async (sessionId: string, input: string, token = ALICE): Promise<Response> => kit.call('/start', { token, body: { agentType: 'assistant', sessionId, input } });

describe('fail-closed construction and authentication', () => {
  it('refuses to construct without authenticate unless allowUnauthenticated is explicit', () => {
    const base = { executor: kit.runtime.executor, stateStore: kit.runtime.stateStore, streamManager: kit.runtime.streamManager, agents: [assistant] };
    expect(() => new AgentServer(base)).toThrow(AgentServerAuthConfigurationError);
    try {
      new AgentServer(base);
    } catch (error) {
      expect((error as AgentServerAuthConfigurationError).code).toBe('SERVER_AUTH_NOT_CONFIGURED');
    }
    expect(new AgentServer({ ...base, allowUnauthenticated: true })).toBeInstanceOf(AgentServer);
  });

  it('answers 401 without a credential or with an unknown one, on every kind of route, and writes nothing', async () => {
    for (const [path, body] of [['/start', { agentType: 'assistant', sessionId: 'auth-x', input: 'hi' }], ['/status?sessionId=auth-x', undefined], ['/sse?sessionId=auth-x', undefined], ['/chat', { id: 'auth-x', messages: [] }]] as const) {
      for (const token of [undefined, 'token-mallory']) {
        const response = await kit.call(path, { ...(token === undefined ? {} : { token }), ...(body === undefined ? {} : { body }) });
        expect(response.status, `${path} ${String(token)}`).toBe(401);
        expect(await jsonOf(response)).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'Authentication is required.' } });
      }
    }
    expect(await kit.runtime.stateStore.loadState('auth-x')).toBeNull();
  });
});

describe('validation and limits', () => {
  it('rejects invalid bodies with a typed 400 that does not echo the payload, and writes nothing', async () => {
    const cases: Array<{ rawBody: string; path?: string }> = [
      { rawBody: JSON.stringify({ agentType: 'assistant', sessionId: 'bad id with spaces SECRET-123', input: 'hi' }) },
      { rawBody: JSON.stringify({ agentType: 'assistant', sessionId: 'val-1', input: { message: 42, secret: 'SECRET-123' } }) },
      { rawBody: '{"agentType": "assistant", "sessionId": "val-1", "input": "SECRET-123"' },
      { rawBody: JSON.stringify({ kind: 'approval-response', sessionId: 'val-1', toolCallId: 't', approved: 'SECRET-123' }), path: '/submit-tool-result' },
    ];
    for (const { rawBody, path } of cases) {
      const response = await kit.call(path ?? '/start', { token: ALICE, rawBody });
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text).not.toContain('SECRET-123');
      expect(JSON.parse(text).error.code).toBe('INVALID_REQUEST');
    }
    expect(await kit.runtime.stateStore.loadState('val-1')).toBeNull();
    expect((await kit.call('/status?sessionId=', { token: ALICE })).status).toBe(400);
    const unknownAgent = await kit.call('/start', { token: ALICE, body: { agentType: 'nope', sessionId: 'val-2', input: 'hi' } });
    expect(unknownAgent.status).toBe(404);
    expect((await jsonOf(unknownAgent)).error.code).toBe('AGENT_NOT_FOUND');
    expect(await kit.runtime.stateStore.loadState('val-2')).toBeNull();
  });

  it('answers 413 to a body over the limit, with or without a content-length, and writes nothing', async () => {
    const big = JSON.stringify({ agentType: 'assistant', sessionId: 'big-1', input: 'x'.repeat(70 * 1024) });
    const sized = await kit.call('/start', { token: ALICE, rawBody: big });
    expect(sized.status).toBe(413);
    expect((await jsonOf(sized)).error.code).toBe('PAYLOAD_TOO_LARGE');
    const bytes = new TextEncoder().encode(big);
    const init: RequestInit & { duplex: 'half' } = {
      method: 'POST',
      headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          for (let offset = 0; offset < bytes.length; offset += 8_192) controller.enqueue(bytes.slice(offset, offset + 8_192));
          controller.close();
        },
      }),
      duplex: 'half',
    };
    const chunked = await fetch(`${kit.baseUrl}/start`, init);
    expect(chunked.status).toBe(413);
    expect(await kit.runtime.stateStore.loadState('big-1')).toBeNull();
  });

  it('GET /workspace answers 404 RUNTIME_NO_WORKSPACE_SUPPORT', async () => {
    const response = await kit.call('/workspace', { token: ALICE });
    expect(response.status).toBe(404);
    expect((await jsonOf(response)).error.code).toBe('RUNTIME_NO_WORKSPACE_SUPPORT');
  });
});

describe('executor routes', () => {
  it('/start then /sse: SSE ids are chunk sequences; Last-Event-ID and fromSequence resume with no duplicate and no gap', async () => {
    const started = await start('sse-1', 'long: tell me');
    expect(started.status).toBe(201);
    const run = await jsonOf(started);
    expect(run).toMatchObject({ sessionId: 'sse-1', streamId: 'sse-1', created: true });

    // Read live until a few events arrived, then drop the connection mid-run.
    const controller = new AbortController();
    const live = await fetch(`${kit.baseUrl}/sse?sessionId=sse-1`, { headers: { authorization: `Bearer ${ALICE}` }, signal: controller.signal });
    expect(live.headers.get('content-type')).toContain('text/event-stream');
    const reader = live.body!.getReader();
    let text = '';
    while ((text.match(/\n\n/g) ?? []).length < 3) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const firstIds = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    expect(firstIds.length).toBeGreaterThanOrEqual(3);
    const lastSeen = firstIds.at(-1)!;
    expect((await status('sse-1')).status).toBe('active'); // the disconnect did not stop the run

    const resumed = await readSse(await kit.call('/sse?sessionId=sse-1', { token: ALICE, headers: { 'last-event-id': String(lastSeen) } }));
    const full = await readSse(await kit.call(`/sse?sessionId=sse-1&fromSequence=${run.startSequence}`, { token: ALICE }));
    expect(full.map((event) => event.id)).toEqual(full.map((event) => event.data.sequence));
    expect([...firstIds, ...resumed.map((event) => event.id)]).toEqual(full.map((event) => event.id));
    const sequences = full.map((event) => event.id);
    expect(sequences).toEqual(Array.from({ length: sequences.length }, (_, index) => sequences[0]! + index));
    const fromQuery = await readSse(await kit.call(`/sse?sessionId=sse-1&fromSequence=${lastSeen}`, { token: ALICE }));
    expect(fromQuery.map((event) => event.id)).toEqual(resumed.map((event) => event.id));
    await waitFor(async () => (await status('sse-1')).status === 'completed', 15_000, 'sse-1 completed');
    expect((await kit.call('/sse?sessionId=sse-1', { token: ALICE, headers: { 'last-event-id': 'abc' } })).status).toBe(400);
  });

  it('/status exposes awaitingClientTool; /submit-tool-result answers it and the run completes', async () => {
    expect((await start('client-1', 'client: where?')).status).toBe(201);
    await waitFor(async () => (await status('client-1')).awaitingClientTool === true, 10_000, 'awaitingClientTool');
    const waiting = await status('client-1');
    expect(waiting).toMatchObject({ status: 'active', awaitingApproval: false, canResume: true, run: { status: 'running' } });
    const [call] = waiting.pendingToolCalls;
    expect(call).toMatchObject({ toolName: 'ask_user', kind: 'client', input: { question: 'Which city?' } });
    const submitted = await kit.call('/submit-tool-result', { token: ALICE, body: { kind: 'client-tool-result', sessionId: 'client-1', toolCallId: call.toolCallId, result: { city: 'Oslo' } } });
    expect(submitted.status).toBe(200);
    expect(await jsonOf(submitted)).toMatchObject({ status: 'accepted', toolCallId: call.toolCallId });
    await waitFor(async () => (await status('client-1')).status === 'completed', 10_000, 'client-1 completed');
    expect(await status('client-1')).toMatchObject({ awaitingClientTool: false, pendingToolCalls: [], run: { status: 'completed' } });
    const again = await kit.call('/submit-tool-result', { token: ALICE, body: { kind: 'client-tool-result', sessionId: 'client-1', toolCallId: call.toolCallId, result: {} } });
    expect((await jsonOf(again)).status).toBe('already_completed');
  });

  it('another principal gets 404 on every route for a session, and changes nothing', async () => {
    expect((await start('owned-1', 'client: mine')).status).toBe(201);
    await waitFor(async () => (await status('owned-1')).awaitingClientTool === true, 10_000, 'owned-1 waiting');
    const before = await kit.runtime.stateStore.loadState('owned-1');
    const toolCallId = Object.keys(before!.pendingClientToolCalls!)[0]!;
    const attempts: Array<[string, unknown?]> = [
      ['/status?sessionId=owned-1'],
      ['/sse?sessionId=owned-1'],
      ['/start', { agentType: 'assistant', sessionId: 'owned-1', input: 'hijack' }],
      ['/resume', { sessionId: 'owned-1', mode: 'with_message', message: 'hijack' }],
      ['/retry', { sessionId: 'owned-1' }],
      ['/interrupt', { sessionId: 'owned-1' }],
      ['/abort', { sessionId: 'owned-1' }],
      ['/submit-tool-result', { kind: 'client-tool-result', sessionId: 'owned-1', toolCallId, result: { city: 'Mallory' } }],
      ['/chat', { id: 'owned-1', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hijack' }] }] }],
      ['/chat/owned-1/stream'],
      ['/chat/owned-1/submit-tool-result', { kind: 'client-tool-result', toolCallId, result: { city: 'Mallory' } }],
      ['/chat/owned-1/interrupt', {}],
      ['/chat/owned-1/abort', {}],
    ];
    for (const [path, body] of attempts) {
      const response = await kit.call(path, { token: BOB, ...(body === undefined ? {} : { body }) });
      expect(response.status, path).toBe(404);
      expect((await jsonOf(response)).error.code, path).toBe('SESSION_NOT_FOUND');
    }
    const after = await kit.runtime.stateStore.loadState('owned-1');
    expect(after?.version).toBe(before?.version);
    expect(after?.pendingClientToolCalls?.[toolCallId]?.submittedAt).toBeUndefined();
    expect((await status('owned-1')).run.status).toBe('running');
    // An unknown session looks exactly the same.
    const unknown = await kit.call('/status?sessionId=never-created', { token: BOB });
    expect(unknown.status).toBe(404);
    await kit.call('/abort', { token: ALICE, body: { sessionId: 'owned-1' } });
  });

  it('/interrupt and /abort are durable; /resume continues an interrupted run; nothing to stop answers 409', async () => {
    expect((await start('stop-1', 'slow: work')).status).toBe(201);
    await waitFor(async () => (await status('stop-1')).stream.lastSequence > 0, 5_000, 'stop-1 in its tool');
    const interrupted = await kit.call('/interrupt', { token: ALICE, body: { sessionId: 'stop-1', reason: 'user pressed stop' } });
    expect(interrupted.status).toBe(202);
    await waitFor(async () => (await status('stop-1')).status === 'interrupted', 15_000, 'stop-1 interrupted');
    expect(await status('stop-1')).toMatchObject({ canResume: true, run: { status: 'interrupted' } });
    const again = await kit.call('/interrupt', { token: ALICE, body: { sessionId: 'stop-1' } });
    expect(again.status).toBe(409);
    expect((await jsonOf(again)).error.code).toBe('NO_ACTIVE_RUN');
    const resumed = await kit.call('/resume', { token: ALICE, body: { sessionId: 'stop-1' } });
    expect(resumed.status).toBe(200);
    await waitFor(async () => (await status('stop-1')).status === 'completed', 15_000, 'stop-1 completed');

    expect((await start('stop-2', 'slow: work')).status).toBe(201);
    // Abort once the slow tool runs (an abort racing the workflow's own start is an executor concern).
    await waitFor(async () => (await status('stop-2')).stream.lastSequence > 0, 5_000, 'stop-2 in its tool');
    const aborted = await kit.call('/abort', { token: ALICE, body: { sessionId: 'stop-2' } });
    expect(aborted.status).toBe(200);
    expect(await status('stop-2')).toMatchObject({ status: 'failed', failureReason: 'aborted', canResume: false, run: { status: 'aborted' } });
    const notResumable = await kit.call('/resume', { token: ALICE, body: { sessionId: 'stop-2' } });
    expect(notResumable.status).toBe(409);
    expect((await jsonOf(notResumable)).error.code).toBe('NOT_RESUMABLE');
    const retried = await kit.call('/retry', { token: ALICE, body: { sessionId: 'stop-2' } });
    expect(retried.status).toBe(200);
    expect((await jsonOf(retried)).runId).toEqual(expect.any(String));
    await waitFor(async () => (await status('stop-2')).status === 'completed', 15_000, 'stop-2 retried and completed');
    const nothingToRetry = await kit.call('/retry', { token: ALICE, body: { sessionId: 'stop-2' } });
    expect(nothingToRetry.status).toBe(409);
    expect((await jsonOf(nothingToRetry)).error.code).toBe('NOT_RESUMABLE');
  });

  it('/start with an existing session id of the same principal answers its run without starting another', async () => {
    const first = await jsonOf(await start('idem-1', 'hello'));
    const second = await start('idem-1', 'hello');
    expect(second.status).toBe(200);
    expect(await jsonOf(second)).toMatchObject({ runId: first.runId, created: false });
    expect((await kit.runtime.stateStore.listRuns('idem-1')).runs).toHaveLength(1);
  });
});

describe('adapters and anonymous mode', () => {
  it('serves the same routes through Express, with or without express.json() in front', async () => {
    const app = express();
    app.use('/raw', createExpressAdapter(kit.server));
    app.use('/parsed', express.json(), createExpressAdapter(kit.server));
    const port = await freePort();
    const http = createServer(app);
    await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
    try {
      for (const [mount, sessionId] of [['raw', 'express-1'], ['parsed', 'express-2']] as const) {
        const response = await fetch(`http://127.0.0.1:${port}/${mount}/start`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
          body: JSON.stringify({ agentType: 'assistant', sessionId, input: 'hello' }),
        });
        expect(response.status, mount).toBe(201);
        const unauthenticated = await fetch(`http://127.0.0.1:${port}/${mount}/status?sessionId=${sessionId}`);
        expect(unauthenticated.status).toBe(401);
      }
      expect((await kit.runtime.stateStore.loadState('express-2'))?.userId).toBe('alice');
    } finally {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });

  it('allowUnauthenticated serves anonymous requests, which see only sessions created without a principal', async () => {
    const open = new AgentServer({ executor: kit.runtime.executor, stateStore: kit.runtime.stateStore, streamManager: kit.runtime.streamManager, agents: [assistant], allowUnauthenticated: true });
    const created = await open.fetch(new Request('http://local/start', { method: 'POST', body: JSON.stringify({ agentType: 'assistant', sessionId: 'anon-1', input: 'hi' }) }));
    expect(created.status).toBe(201);
    expect((await kit.runtime.stateStore.loadState('anon-1'))?.userId).toBeUndefined();
    expect((await open.fetch(new Request('http://local/status?sessionId=anon-1'))).status).toBe(200);
    expect((await open.fetch(new Request('http://local/status?sessionId=idem-1'))).status).toBe(404); // alice's
    expect((await kit.call('/status?sessionId=anon-1', { token: ALICE })).status).toBe(404);
  });

  it('basePath prefixes every route; anything else is a typed 404', async () => {
    const mounted = new AgentServer({ executor: kit.runtime.executor, stateStore: kit.runtime.stateStore, streamManager: kit.runtime.streamManager, agents: [assistant], allowUnauthenticated: true, basePath: '/agents' });
    const started = await mounted.fetch(new Request('http://local/agents/start', { method: 'POST', body: JSON.stringify({ agentType: 'assistant', sessionId: 'based-1', input: 'hi' }) }));
    expect(started.status).toBe(201);
    expect(await jsonOf(await mounted.fetch(new Request('http://local/agents/status?sessionId=based-1')))).toMatchObject({ sessionId: 'based-1' });
    const outside = await mounted.fetch(new Request('http://local/status?sessionId=based-1'));
    expect(outside.status).toBe(404);
    expect((await jsonOf(outside)).error.code).toBe('NOT_FOUND');
    // Without `chat`, the chat routes do not exist.
    expect((await jsonOf(await mounted.fetch(new Request('http://local/agents/chat', { method: 'POST', body: '{}' })))).error.code).toBe('NOT_FOUND');
  });
});

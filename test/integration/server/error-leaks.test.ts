import { createServer, type Server } from 'node:http';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../../../src/agent/index.js';
import type { Logger } from '../../../src/hooks/types.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { AgentServer } from '../../../src/server/agent-server.js';
import { createHttpAdapter } from '../../../src/server/node-http-adapter.js';
import { freePort, waitFor } from '../../support/free-port.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks } from '../executor/executor-test-kit.js';

/**
 * Errors across trust boundaries: a provider error whose message echoes the API key and the prompt must not reach
 * `AgentResult.error`, the stored session and run, the stream, `GET /status`, `/sse` or the UI stream of `/chat`.
 */
const SECRET = 'sk-live-SECRET123456789';
const PROMPT_FRAGMENT = 'CONFIDENTIAL-SYSTEM-PROMPT-7731';

const agent = defineAgent({ name: 'leaky', systemPrompt: `You are ${PROMPT_FRAGMENT}.` });

/** A provider that fails the way real ones do: the message quotes the key and the request. */
const adapter = new MockLLMAdapter((input) => {
  const system = input.messages.find((message) => message.role === 'system');
  throw Object.assign(new Error(`401 Incorrect API key provided: ${SECRET}. Request: ${JSON.stringify(system?.content)}`), { name: 'APICallError', statusCode: 401 });
});

const logged: Array<{ level: string; text: string }> = [];
const record = (level: string) => (message: string, fields?: Record<string, unknown>) =>
  void logged.push({ level, text: `${message} ${JSON.stringify(fields ?? {}, (_key, value: unknown) => (value instanceof Error ? `${value.name}: ${value.message}` : value))}` });
const logger: Logger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };

let runtime: TestRuntime;
let http: Server;
let baseUrl: string;
beforeAll(async () => {
  runtime = await startTestRuntime('server_error_leaks', adapter, { logger });
  const server = new AgentServer({ executor: runtime.executor, stateStore: runtime.stateStore, streamManager: runtime.streamManager, agents: [agent], chat: { agent }, allowUnauthenticated: true });
  const port = await freePort();
  http = createServer(createHttpAdapter(server));
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline && (await DBOS.listWorkflows({ status: 'PENDING' })).length > 0) await new Promise((resolve) => setTimeout(resolve, 100));
  http?.closeAllConnections();
  await new Promise<void>((resolve) => (http === undefined ? resolve() : http.close(() => resolve())));
  await runtime?.shutdown();
});

const post = (path: string, body: unknown): Promise<Response> =>
  fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

function expectClean(text: string, where: string): void {
  expect(text, where).not.toContain(SECRET);
  expect(text, where).not.toContain('SECRET123456789');
  expect(text, where).not.toContain(PROMPT_FRAGMENT);
  expect(text, where).not.toContain('Incorrect API key');
}

describe('a provider error that quotes the API key and the prompt', () => {
  it('reaches the result, the store and the stream only as a typed, generic error; the cause is logged at debug only', async () => {
    const handle = await runtime.executor.execute(agent, 'hello', { sessionId: 'leak-direct' });
    const chunks = await collectChunks(handle);
    const result = await handle.result();

    expect(result).toMatchObject({ status: 'failed', completionReason: 'failed' });
    expect(result.error).toBe('LLM_CALL_FAILED: The LLM call failed (APICallError, status 401); the cause is logged at debug level.');
    const state = await runtime.stateStore.loadState('leak-direct');
    const run = await runtime.stateStore.getRun('leak-direct', handle.runId);
    const errorChunk = chunks.find((chunk) => chunk.type === 'error');
    expect(state?.error).toBe(result.error);
    expect(run?.error).toBe(result.error);
    expect(errorChunk).toMatchObject({ type: 'error', error: result.error });
    expectClean(JSON.stringify({ result, state: state?.error, run: run?.error, chunks }), 'executor');

    // The full cause is for the operator, at debug level only.
    expect(logged.filter((entry) => entry.level === 'debug' && entry.text.includes(SECRET)).length).toBeGreaterThan(0);
    expectClean(JSON.stringify(logged.filter((entry) => entry.level !== 'debug')), 'logs above debug');
  });

  it('is served by GET /status, /sse and the /chat UI stream with its code, never its text', async () => {
    const started = await post('/start', { agentType: 'leaky', sessionId: 'leak-http', input: 'hello' });
    expect(started.status).toBe(201);
    const sse = await (await fetch(`${baseUrl}/sse?sessionId=leak-http`)).text();
    expectClean(sse, 'sse');
    const errorEvent = sse.split('\n').find((line) => line.startsWith('data:') && line.includes('"type":"error"'));
    expect(JSON.parse(errorEvent!.slice(5)).error).toMatch(/^LLM_CALL_FAILED: /);

    // The stream ends just before the session's status is written.
    const statusOf = async (): Promise<string> => (await fetch(`${baseUrl}/status?sessionId=leak-http`)).text();
    await waitFor(async () => (JSON.parse(await statusOf()) as { status: string }).status === 'failed', 5_000, 'leak-http failed');
    const statusText = await statusOf();
    expectClean(statusText, 'status');
    expect(JSON.parse(statusText)).toMatchObject({ status: 'failed', error: expect.stringMatching(/^LLM_CALL_FAILED: The LLM call failed \(APICallError, status 401\)/) });

    const chat = await post('/chat', { id: 'leak-chat', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }] });
    const uiStream = await chat.text();
    expectClean(uiStream, 'ui stream');
    expect(uiStream).toContain('"errorText":"LLM_CALL_FAILED: The LLM call failed (APICallError, status 401)');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../support/free-port.js';
import { jsonOf, readSse, startServerKit, type ServerKit } from './support/server-kit.js';
import { spawnServerProcess, type ServerProcess } from './support/server-spawn.js';

let kit: ServerKit; // instance A: this process
let other: ServerProcess | undefined; // instance B: a second process on the same database
let otherUrl: string;

beforeAll(async () => {
  kit = await startServerKit('server_two');
  other = await spawnServerProcess({ databaseUrl: kit.runtime.database.url }, 'server-b');
  otherUrl = other.url;
}, 90_000);
afterAll(async () => {
  await other?.stop();
  await kit?.close();
});

const onB = (path: string, body?: unknown, token = 'token-alice'): Promise<Response> =>
  fetch(`${otherUrl}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
const statusOnB = async (sessionId: string): Promise<any> => jsonOf(await onB(`/status?sessionId=${sessionId}`));
const startOnA = async (sessionId: string, input: string): Promise<void> => {
  expect((await kit.call('/start', { token: 'token-alice', body: { agentType: 'assistant', sessionId, input } })).status).toBe(201);
};

describe('two server processes on one database', () => {
  it('status, interrupt and abort work on the instance that did not start the run', async () => {
    await startOnA('two-interrupt', 'slow: work');
    await waitFor(async () => (await statusOnB('two-interrupt')).stream.lastSequence > 0, 10_000, 'the run in its tool, seen from B');
    expect(await statusOnB('two-interrupt')).toMatchObject({ status: 'active', run: { status: 'running' } });
    expect((await onB('/status?sessionId=two-interrupt', undefined, 'token-bob')).status).toBe(404);
    expect((await onB('/interrupt', { sessionId: 'two-interrupt' }, 'token-bob')).status).toBe(404);
    expect((await onB('/interrupt', { sessionId: 'two-interrupt', reason: 'from B' })).status).toBe(202);
    await waitFor(async () => (await statusOnB('two-interrupt')).status === 'interrupted', 15_000, 'interrupted');
    expect((await kit.runtime.stateStore.getCurrentRun('two-interrupt'))?.status).toBe('interrupted');

    await startOnA('two-abort', 'slow: work');
    await waitFor(async () => (await statusOnB('two-abort')).stream.lastSequence > 0, 10_000, 'the second run in its tool');
    expect((await onB('/chat/two-abort/abort', {})).status).toBe(200);
    expect(await statusOnB('two-abort')).toMatchObject({ status: 'failed', failureReason: 'aborted', run: { status: 'aborted' } });
    const events = await readSse(await kit.call('/sse?sessionId=two-abort&fromSequence=0', { token: 'token-alice' }));
    expect(events.at(-1)?.data).toMatchObject({ type: 'error', code: 'ABORTED' });
  });

  it('a client tool result submitted on B wakes the run waiting on A; B streams what A writes', async () => {
    await startOnA('two-client', 'client: where?');
    await waitFor(async () => (await statusOnB('two-client')).awaitingClientTool === true, 10_000, 'awaitingClientTool on B');
    const { pendingToolCalls } = await statusOnB('two-client');
    const submitted = await onB('/submit-tool-result', { kind: 'client-tool-result', sessionId: 'two-client', toolCallId: pendingToolCalls[0].toolCallId, result: { city: 'Oslo' } });
    expect(await jsonOf(submitted)).toMatchObject({ status: 'accepted' });
    await waitFor(async () => (await statusOnB('two-client')).status === 'completed', 10_000, 'completed');
    const events = await readSse(await onB('/sse?sessionId=two-client&fromSequence=0'));
    expect(events.map((event) => event.data.type)).toEqual(expect.arrayContaining(['tool_start', 'tool_end', 'text_delta']));
    expect(events.map((event) => event.id)).toEqual(events.map((event) => event.data.sequence));
  });
});

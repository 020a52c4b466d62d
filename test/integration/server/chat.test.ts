import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../support/free-port.js';
import { CLOSING_TEXT, FIRST_STEP_TEXT, FLAKY_ANSWER, FLAKY_PARTIAL, LONG_ANSWER } from './support/server-agents.js';
import { jsonOf, readSse, startServerKit, type ServerKit } from './support/server-kit.js';

let kit: ServerKit;
let transport: DefaultChatTransport<UIMessage>;
beforeAll(async () => {
  kit = await startServerKit('server_chat');
  transport = new DefaultChatTransport({ api: `${kit.baseUrl}/chat`, headers: { authorization: 'Bearer token-alice' } });
});
afterAll(async () => {
  await kit?.close();
});

const user = (text: string, id = 'u1'): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });
const textOf = (message: UIMessage): string => message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
const sessionStatus = async (sessionId: string): Promise<any> => jsonOf(await kit.call(`/status?sessionId=${sessionId}`, { token: 'token-alice' }));

async function send(chatId: string, messages: UIMessage[], abortSignal?: AbortSignal): Promise<ReadableStream<UIMessageChunk>> {
  return transport.sendMessages({ chatId, messages, trigger: 'submit-message', messageId: undefined, abortSignal });
}

/** The last snapshot `readUIMessageStream` yields (the real AI SDK client code). */
async function read(stream: ReadableStream<UIMessageChunk>, message?: UIMessage): Promise<UIMessage> {
  let last: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, terminateOnError: true, ...(message === undefined ? {} : { message }) })) last = snapshot;
  if (last === undefined) throw new Error('the stream produced no message');
  return last;
}

describe('chat routes with the AI SDK client (DefaultChatTransport + readUIMessageStream)', () => {
  it('POST /chat streams the answer as one assistant message (id = the run id)', async () => {
    const message = await read(await send('chat-1', [user('hello world')]));
    expect(textOf(message)).toBe('echo hello world');
    const run = await kit.runtime.stateStore.getCurrentRun('chat-1');
    expect(message).toMatchObject({ id: run?.runId, role: 'assistant' });
    expect((await kit.runtime.stateStore.loadState('chat-1'))?.userId).toBe('alice');
    // A second turn on the completed session is a new run.
    const second = await read(await send('chat-1', [user('hello world'), message, user('again', 'u2')]));
    expect(textOf(second)).toBe('echo hello world');
    expect((await kit.runtime.stateStore.listRuns('chat-1')).runs).toHaveLength(2);
    await waitFor(async () => (await sessionStatus('chat-1')).run.status === 'completed', 5_000, 'chat-1 recorded');
    expect(await transport.reconnectToStream({ chatId: 'chat-1' })).toBeNull(); // 204: nothing runs
  });

  it('a message sent the moment the answer stream ends starts the next turn (the finish committed the session with the stream’s end)', async () => {
    const store = kit.runtime.stateStore;
    const first = await read(await send('chat-quick', [user('hello quick')]));
    // The stream's end and the session's status commit together with the finish's record: no gap between them (a
    // finish that writes on its own is waited for: standard-run.test.ts).
    expect((await store.loadState('chat-quick'))?.status).toBe('completed');
    const second = await read(await send('chat-quick', [user('hello quick'), first, user('next', 'u2')]));
    expect(second.id).not.toBe(first.id);
    expect((await store.listRuns('chat-quick')).runs).toHaveLength(2);
  });

  it('a client that disconnects mid-answer and reconnects gets exactly the full text; the run never stopped', async () => {
    const controller = new AbortController();
    const stream = await send('chat-long', [user('long: tell me a story')], controller.signal);
    const reader = stream.getReader();
    const seen: UIMessageChunk[] = [];
    while (!seen.some((part) => part.type === 'tool-input-available')) {
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended early');
      seen.push(value);
    }
    expect(seen.filter((part) => part.type === 'text-delta').map((part) => (part as { delta: string }).delta).join('')).toBe(FIRST_STEP_TEXT);
    controller.abort();
    await reader.cancel().catch(() => undefined);
    expect((await sessionStatus('chat-long')).run.status).toBe('running'); // mid-answer: the slow tool still runs

    const resumed = await transport.reconnectToStream({ chatId: 'chat-long' });
    expect(resumed).not.toBeNull();
    const message = await read(resumed!);
    expect(textOf(message)).toBe(FIRST_STEP_TEXT + LONG_ANSWER);
    expect(message.parts.filter((part) => part.type === 'text')).toHaveLength(2);
    expect(message.parts.filter((part) => part.type === 'tool-slow_tool')).toEqual([expect.objectContaining({ state: 'output-available', output: { waited: 1_200 } })]);
    await waitFor(async () => (await sessionStatus('chat-long')).status === 'completed', 10_000, 'chat-long completed');
  });

  it('a retried LLM step (step_reset after partial text) shows exactly the final text, live and replayed', async () => {
    const stream = await send('chat-flaky', [user('flaky: answer me')]);
    // A raw live reader proves the failed attempt's text reached the stream before the reset.
    const raw = readSse(await kit.call('/sse?sessionId=chat-flaky&fromSequence=0', { token: 'token-alice' }));
    const message = await read(stream);
    expect(textOf(message)).toBe(FLAKY_ANSWER);
    expect(message.parts.filter((part) => part.type === 'text')).toHaveLength(1);
    const chunks = (await raw).map((event) => event.data as { type: string; delta?: string });
    const reset = chunks.findIndex((chunk) => chunk.type === 'step_reset');
    expect(reset).toBeGreaterThan(0);
    expect(chunks.slice(0, reset).map((chunk) => chunk.delta ?? '').join('')).toBe(`${FLAKY_PARTIAL} `);
    // One assistant message per run.
    expect((await kit.runtime.stateStore.getCurrentRun('chat-flaky'))?.runId).toBe(message.id);
  });

  it('an approval is requested in the UI stream and answered through POST /chat/{id}/submit-tool-result', async () => {
    const asked = await read(await send('chat-pay', [user('approve: pay the bill')]));
    const tool = asked.parts.find((part) => part.type === 'tool-pay') as { toolCallId: string; state: string; input: unknown; approval: { id: string } } | undefined;
    expect(tool).toMatchObject({ state: 'approval-requested', input: { amount: 5 } });
    expect(textOf(asked)).toBe('I will pay.');
    expect(await sessionStatus('chat-pay')).toMatchObject({ awaitingApproval: true, run: { status: 'running' } });

    const submitted = await kit.call('/chat/chat-pay/submit-tool-result', { token: 'token-alice', body: { kind: 'approval-response', toolCallId: tool!.toolCallId, approvalId: tool!.approval.id, approved: true } });
    expect(submitted.status).toBe(200);
    expect(await jsonOf(submitted)).toMatchObject({ status: 'accepted' });

    // useChat({ resume: true }) after a reload: the whole assistant message, replayed from its start.
    const replay = await transport.reconnectToStream({ chatId: 'chat-pay' });
    const message = await read(replay!);
    expect(message.parts.filter((part) => part.type === 'tool-pay')).toEqual([expect.objectContaining({ state: 'output-available', output: { paid: 5 } })]);
    expect(textOf(message)).toBe(`I will pay.${CLOSING_TEXT}`);
    await waitFor(async () => (await sessionStatus('chat-pay')).status === 'completed', 10_000, 'chat-pay completed');
  });

  it('useChat flow: client tool output and an approval denial sent back as the assistant message continue the run', async () => {
    const asked = await read(await send('chat-client', [user('client: where to?')]));
    const tool = asked.parts.find((part) => part.type === 'tool-ask_user') as { state: string } | undefined;
    expect(tool).toMatchObject({ state: 'input-available', input: { question: 'Which city?' } });
    // The message records the last stream sequence it shows: the continuation starts right after it.
    const { lastSequence } = asked.metadata as { lastSequence: number };
    expect(lastSequence).toBe((await kit.runtime.streamManager.getInfo('chat-client'))?.lastSequence);
    const answered = { ...asked, parts: asked.parts.map((part) => (part.type === 'tool-ask_user' ? { ...part, state: 'output-available', output: { city: 'Oslo' } } : part)) } as UIMessage;
    const continued = await read(await send('chat-client', [user('client: where to?'), answered]), answered);
    expect(continued.id).toBe(asked.id); // the same assistant message continues
    expect(continued.parts.filter((part) => part.type === 'tool-ask_user')).toEqual([expect.objectContaining({ state: 'output-available', output: { city: 'Oslo' } })]);
    expect(textOf(continued)).toBe(CLOSING_TEXT);
    await waitFor(async () => (await sessionStatus('chat-client')).status === 'completed', 10_000, 'chat-client completed');

    const request = await read(await send('chat-deny', [user('approve: pay')]));
    const denied = {
      ...request,
      parts: request.parts.map((part) => (part.type === 'tool-pay' ? { ...part, state: 'approval-responded', approval: { ...(part as { approval: object }).approval, approved: false, reason: 'no' } } : part)),
    } as UIMessage;
    const after = await read(await send('chat-deny', [user('approve: pay'), denied]), denied);
    expect(after.parts.filter((part) => part.type === 'tool-pay')).toEqual([expect.objectContaining({ state: 'output-denied' })]);
    expect(textOf(after)).toBe(`I will pay.${CLOSING_TEXT}`);
  });

  it('POST /chat/{id}/interrupt stops the run; a message for a running session is refused', async () => {
    const stream = await send('chat-stop', [user('slow: work')]);
    await waitFor(async () => (await sessionStatus('chat-stop')).stream.lastSequence > 0, 5_000, 'chat-stop in its tool');
    await expect(send('chat-stop', [user('slow: work'), user('more', 'u2')])).rejects.toThrow(/AGENT_ALREADY_RUNNING/);
    const interrupted = await kit.call('/chat/chat-stop/interrupt', { token: 'token-alice', body: {} });
    expect(interrupted.status).toBe(202);
    const message = await read(stream);
    expect(message.parts.filter((part) => part.type === 'tool-slow_tool')).toHaveLength(1);
    await waitFor(async () => (await sessionStatus('chat-stop')).status === 'interrupted', 5_000, 'chat-stop interrupted');
    // The next message continues the interrupted conversation.
    const next = await read(await send('chat-stop', [user('slow: work'), message, user('go on', 'u2')]));
    expect(textOf(next)).toBe(CLOSING_TEXT);
    await waitFor(async () => (await sessionStatus('chat-stop')).run.status === 'completed', 5_000, 'chat-stop completed');
    expect((await kit.runtime.stateStore.listRuns('chat-stop')).runs.map((run) => run.status)).toEqual(['interrupted', 'completed']);
  });
});

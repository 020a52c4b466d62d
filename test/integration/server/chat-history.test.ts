/**
 * GET /chat/{id}/messages: a chat's history as the AI SDK's UI messages, equal to what the live stream built (ids,
 * text, tool parts and their states), behind the chat routes' ownership; a running answer is replaced in place by the
 * `resume` replay (same id).
 */
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../support/free-port.js';
import { CLOSING_TEXT, FIRST_STEP_TEXT, LONG_ANSWER } from './support/server-agents.js';
import { jsonOf, startServerKit, type ServerKit } from './support/server-kit.js';

let kit: ServerKit;
let transport: DefaultChatTransport<UIMessage>;
beforeAll(async () => {
  kit = await startServerKit('server_chat_history');
  transport = new DefaultChatTransport({ api: `${kit.baseUrl}/chat`, headers: { authorization: 'Bearer token-alice' } });
});
afterAll(async () => {
  await kit?.close();
});

const user = (text: string, id: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });
const textOf = (message: UIMessage | undefined): string => (message?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
const send = (chatId: string, messages: UIMessage[]): Promise<ReadableStream<UIMessageChunk>> => transport.sendMessages({ chatId, messages, trigger: 'submit-message', messageId: undefined, abortSignal: undefined });
async function read(stream: ReadableStream<UIMessageChunk>, message?: UIMessage): Promise<UIMessage> {
  let last: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, terminateOnError: true, ...(message === undefined ? {} : { message }) })) last = snapshot;
  if (last === undefined) throw new Error('no message');
  return last;
}
const history = async (chatId: string, token = 'token-alice'): Promise<Response> => kit.call(`/chat/${chatId}/messages`, { token });
const messagesOf = async (chatId: string): Promise<UIMessage[]> => (await jsonOf(await history(chatId))).messages;
const toolPart = (message: UIMessage | undefined, name: string): any => message?.parts.find((part) => part.type === `tool-${name}`);

describe('GET /chat/{id}/messages', () => {
  it('restores every turn as the live stream showed it: user text, answer text, the tool part and its state', async () => {
    const asked = await read(await send('hist-1', [user('approve: the bill', 'u1')]));
    expect(toolPart(asked, 'pay')).toMatchObject({ state: 'approval-requested' });
    const restored = await messagesOf('hist-1');
    expect(restored.map((message) => [message.role, message.id])).toEqual([
      ['user', `${asked.id}:0:0`],
      ['assistant', asked.id],
    ]);
    expect(textOf(restored[0])).toBe('approve: the bill');
    // The parked answer comes back exactly as streamed: same parts (text, step boundaries, approval request), same metadata.
    expect(restored[1]).toEqual(asked);

    // Approving from the restored message (all the page sends is that message) continues the same answer.
    const approval = toolPart(restored[1], 'pay');
    const answered: UIMessage = { ...restored[1]!, parts: restored[1]!.parts.map((part) => (part === approval ? { ...approval, state: 'approval-responded', approval: { id: approval.approval.id, approved: true } } : part)) };
    const continued = await read(await send('hist-1', [answered]), answered);
    expect(toolPart(continued, 'pay')).toMatchObject({ state: 'output-available', output: { paid: 5 } });
    await waitFor(async () => (await kit.runtime.stateStore.loadState('hist-1'))?.status === 'completed', 10_000, 'hist-1 completed');

    const second = await read(await send('hist-1', [user('and now?', 'u2')]));
    expect(textOf(second)).toBe(CLOSING_TEXT); // the model closes once a tool result is in the history
    await waitFor(async () => (await kit.runtime.stateStore.getCurrentRun('hist-1'))?.status === 'completed', 10_000, 'turn 2 completed');
    const after = await messagesOf('hist-1');
    expect(after.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(after.map((message) => message.id)).toEqual([`${asked.id}:0:0`, asked.id, `${second.id}:0:0`, second.id]);
    expect(textOf(after[1])).toBe(`I will pay.${CLOSING_TEXT}`);
    expect(toolPart(after[1], 'pay')).toMatchObject({ state: 'output-available', input: { amount: 5 }, output: { paid: 5 } });
    expect(after[1]!.parts.filter((part) => part.type.startsWith('tool-'))).toHaveLength(1);
    expect([textOf(after[2]), textOf(after[3])]).toEqual(['and now?', CLOSING_TEXT]);
    expect(after[3]).toEqual(second);
  });

  it('a running answer is in the history under its run id; the resume replay replaces it whole', async () => {
    const stream = await send('hist-long', [user('long: a story', 'u1')]);
    const reader = stream.getReader();
    for (let part = await reader.read(); !part.done && part.value.type !== 'tool-input-available'; part = await reader.read());
    await reader.cancel();
    const run = await kit.runtime.stateStore.getCurrentRun('hist-long');
    expect(run?.status).toBe('running');
    const restored = await messagesOf('hist-long');
    expect(restored.map((message) => message.id)).toEqual([`${run!.runId}:0:0`, run!.runId]);
    expect(textOf(restored[1])).toBe(FIRST_STEP_TEXT);
    expect(toolPart(restored[1], 'slow_tool')).toMatchObject({ state: 'input-available' });
    const replay = await transport.reconnectToStream({ chatId: 'hist-long' });
    const whole = await read(replay!);
    expect(whole.id).toBe(restored[1]!.id); // useChat replaces the restored message by id: nothing doubles
    expect(textOf(whole)).toBe(`${FIRST_STEP_TEXT}${LONG_ANSWER}`);
    await waitFor(async () => (await kit.runtime.stateStore.getCurrentRun('hist-long'))?.status === 'completed', 10_000, 'hist-long completed');
    expect(await messagesOf('hist-long')).toEqual([restored[0], whole]);
  });

  it("another principal's chat answers exactly as a missing one; no token is 401", async () => {
    const other = await history('hist-1', 'token-bob');
    const missing = await history('hist-none', 'token-bob');
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual(await missing.json());
    expect(missing.status).toBe(404);
    expect((await kit.call('/chat/hist-1/messages')).status).toBe(401);
    expect((await history('bad%20id')).status).toBe(404);
  });
});

/** Chat routes against runs that parked (the warm wait ended): answers resume them, the UI sees one message. */
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../support/free-port.js';
import { CLOSING_TEXT } from './support/server-agents.js';
import { jsonOf, startServerKit, type ServerKit } from './support/server-kit.js';

let kit: ServerKit;
let transport: DefaultChatTransport<UIMessage>;
beforeAll(async () => {
  kit = await startServerKit('server_parked', {}, { hitlWarmWindowMs: 300 });
  transport = new DefaultChatTransport({ api: `${kit.baseUrl}/chat`, headers: { authorization: 'Bearer token-alice' } });
});
afterAll(async () => {
  await kit?.close();
});

const user = (text: string): UIMessage => ({ id: 'u1', role: 'user', parts: [{ type: 'text', text }] });
const textOf = (message: UIMessage): string => message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
const runStatus = async (sessionId: string): Promise<string | undefined> => (await kit.runtime.stateStore.getCurrentRun(sessionId))?.status;
async function read(stream: ReadableStream<UIMessageChunk>, message?: UIMessage): Promise<UIMessage> {
  let last: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, terminateOnError: true, ...(message === undefined ? {} : { message }) })) last = snapshot;
  if (last === undefined) throw new Error('no message');
  return last;
}
const send = (chatId: string, messages: UIMessage[]): Promise<ReadableStream<UIMessageChunk>> => transport.sendMessages({ chatId, messages, trigger: 'submit-message', messageId: undefined, abortSignal: undefined });

describe('chat routes with parked runs', () => {
  it('an approval submitted after the run parked resumes it; the replay is one message across both runs', async () => {
    const asked = await read(await send('parked-pay', [user('approve: pay')]));
    const tool = asked.parts.find((part) => part.type === 'tool-pay') as { toolCallId: string; approval: { id: string } };
    await waitFor(async () => (await runStatus('parked-pay')) === 'suspended_client_tool', 10_000, 'parked');
    expect(await transport.reconnectToStream({ chatId: 'parked-pay' })).toBeNull(); // parked: nothing runs

    const submitted = await jsonOf(await kit.call('/chat/parked-pay/submit-tool-result', { token: 'token-alice', body: { kind: 'approval-response', toolCallId: tool.toolCallId, approvalId: tool.approval.id, approved: true } }));
    expect(submitted).toMatchObject({ status: 'accepted', run: { sessionId: 'parked-pay' } });
    expect(submitted.run.runId).not.toBe(asked.id);

    const replay = await transport.reconnectToStream({ chatId: 'parked-pay' });
    expect(replay).not.toBeNull();
    const message = await read(replay!);
    expect(message.id).toBe(asked.id); // the message the parked run began
    expect(message.parts.filter((part) => part.type === 'tool-pay')).toEqual([expect.objectContaining({ state: 'output-available', output: { paid: 5 } })]);
    expect(textOf(message)).toBe(`I will pay.${CLOSING_TEXT}`);
  });

  it('useChat flow: a client tool output for a parked run resumes it and continues the same message', async () => {
    const asked = await read(await send('parked-client', [user('client: where?')]));
    await waitFor(async () => (await runStatus('parked-client')) === 'suspended_client_tool', 10_000, 'parked');
    const answered = { ...asked, parts: asked.parts.map((part) => (part.type === 'tool-ask_user' ? { ...part, state: 'output-available', output: { city: 'Oslo' } } : part)) } as UIMessage;
    const continued = await read(await send('parked-client', [user('client: where?'), answered]), answered);
    expect(continued.id).toBe(asked.id);
    expect(continued.parts.filter((part) => part.type === 'tool-ask_user')).toEqual([expect.objectContaining({ state: 'output-available', output: { city: 'Oslo' } })]);
    expect(textOf(continued)).toBe(CLOSING_TEXT);
    expect((await kit.runtime.stateStore.listRuns('parked-client')).runs.map((run) => run.status)).toEqual(['suspended_client_tool', expect.stringMatching(/running|completed/)]);
  });
});

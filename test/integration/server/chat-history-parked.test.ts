/**
 * GET /chat/{id}/messages across a parked run: the approval request comes back from history, answering it from the
 * restored message resumes the parked run, and the history then shows one answer across both runs.
 */
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../support/free-port.js';
import { CLOSING_TEXT } from './support/server-agents.js';
import { jsonOf, startServerKit, type ServerKit } from './support/server-kit.js';

let kit: ServerKit;
let transport: DefaultChatTransport<UIMessage>;
beforeAll(async () => {
  kit = await startServerKit('server_history_parked', {}, { hitlWarmWindowMs: 300 });
  transport = new DefaultChatTransport({ api: `${kit.baseUrl}/chat`, headers: { authorization: 'Bearer token-alice' } });
});
afterAll(async () => {
  await kit?.close();
});

const textOf = (message: UIMessage | undefined): string => (message?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
const send = (messages: UIMessage[]): Promise<ReadableStream<UIMessageChunk>> => transport.sendMessages({ chatId: 'hist-parked', messages, trigger: 'submit-message', messageId: undefined, abortSignal: undefined });
async function read(stream: ReadableStream<UIMessageChunk>, message?: UIMessage): Promise<UIMessage> {
  let last: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, terminateOnError: true, ...(message === undefined ? {} : { message }) })) last = snapshot;
  if (last === undefined) throw new Error('no message');
  return last;
}
const messagesOf = async (): Promise<UIMessage[]> => (await jsonOf(await kit.call('/chat/hist-parked/messages', { token: 'token-alice' }))).messages;
const runStatus = async (): Promise<string | undefined> => (await kit.runtime.stateStore.getCurrentRun('hist-parked'))?.status;

describe('GET /chat/{id}/messages with a parked run', () => {
  it('restores the parked approval request; answering it from history continues one answer across both runs', async () => {
    const asked = await read(await send([{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'approve: later' }] }]));
    await waitFor(async () => (await runStatus()) === 'suspended_client_tool', 10_000, 'parked');
    const restored = await messagesOf();
    expect(restored.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(restored[1]).toEqual(asked);
    const request = restored[1]!.parts.find((part) => part.type === 'tool-pay') as any;
    expect(request).toMatchObject({ state: 'approval-requested', input: { amount: 5 } });

    const answered: UIMessage = { ...restored[1]!, parts: restored[1]!.parts.map((part) => (part === request ? { ...request, state: 'approval-responded', approval: { id: request.approval.id, approved: true } } : part)) };
    const continued = await read(await send([answered]), answered);
    expect(continued.id).toBe(asked.id);
    await waitFor(async () => (await runStatus()) === 'completed', 10_000, 'completed');
    expect((await kit.runtime.stateStore.listRuns('hist-parked')).runs).toHaveLength(2); // the parked run, then its resumption

    const after = await messagesOf();
    expect(after.map((message) => [message.role, message.id])).toEqual([
      ['user', restored[0]!.id],
      ['assistant', asked.id],
    ]);
    expect(textOf(after[1])).toBe(`I will pay.${CLOSING_TEXT}`);
    expect(after[1]!.parts.filter((part) => part.type === 'tool-pay')).toEqual([expect.objectContaining({ state: 'output-available', output: { paid: 5 } })]);
  });
});

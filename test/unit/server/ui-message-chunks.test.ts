import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { mapStreamChunksToUI, UIMessageChunkMapper } from '../../../src/server/ui-message-chunks.js';
import type { StreamChunk } from '../../../src/types/stream.js';

const ROOT = 'session-1';
let sequence = 0;
/** A chunk of the root agent (or of `agentId`) at `step`. */
function chunk(step: number, body: Record<string, unknown> & { type: StreamChunk['type'] }, agentId = ROOT): StreamChunk {
  sequence += 1;
  return { agentId, agentType: 'assistant', timestamp: 0, step, sequence, ...body } as unknown as StreamChunk;
}
const text = (step: number, delta: string, agentId = ROOT): StreamChunk => chunk(step, { type: 'text_delta', delta }, agentId);

/** The final UIMessage `readUIMessageStream` builds from UI chunks (the real ai client code). */
async function finalMessage(ui: UIMessageChunk[], message?: UIMessage): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const part of ui) controller.enqueue(part);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, terminateOnError: true, ...(message === undefined ? {} : { message }) })) last = snapshot;
  if (last === undefined) throw new Error('no message');
  return last;
}
const textOf = (message: UIMessage): string => message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');

describe('UIMessageChunkMapper (table)', () => {
  const cases: Array<{ name: string; chunks: StreamChunk[]; expected: UIMessageChunk[] }> = [
    {
      name: 'text of a step is held until the run ends, then sent once',
      chunks: [text(1, 'Hel'), text(1, 'lo')],
      expected: [
        { type: 'start', messageId: 'm' },
        { type: 'start-step' },
        { type: 'text-start', id: 'text-1' },
        { type: 'text-delta', id: 'text-1', delta: 'Hello' },
        { type: 'text-end', id: 'text-1' },
        { type: 'finish-step' },
        { type: 'finish', finishReason: 'stop' },
      ],
    },
    {
      name: 'step_reset drops the held text of the failed attempt',
      chunks: [text(1, 'Par'), chunk(1, { type: 'step_reset', attempt: 2 }), text(1, 'Full')],
      expected: [
        { type: 'start', messageId: 'm' },
        { type: 'start-step' },
        { type: 'text-start', id: 'text-1' },
        { type: 'text-delta', id: 'text-1', delta: 'Full' },
        { type: 'text-end', id: 'text-1' },
        { type: 'finish-step' },
        { type: 'finish', finishReason: 'stop' },
      ],
    },
    {
      name: 'reasoning, a tool call with a state patch and a custom event, then a new step',
      chunks: [
        chunk(1, { type: 'thinking', delta: 'hmm' }),
        text(1, 'Looking'),
        chunk(1, { type: 'tool_start', toolCallId: 'c1', toolName: 'search', arguments: { q: 'x' } }),
        chunk(1, { type: 'state_patch', patches: [{ op: 'add', path: '/n', value: 1 }] }),
        chunk(1, { type: 'custom', eventName: 'skill_loaded', data: { name: 'pdf' } }),
        chunk(1, { type: 'tool_end', toolCallId: 'c1', toolName: 'search', result: { hits: 2 } }),
        text(2, 'Done'),
        chunk(2, { type: 'output', output: { answer: 42 } }),
      ],
      expected: [
        { type: 'start', messageId: 'm' },
        { type: 'start-step' },
        { type: 'reasoning-start', id: 'reasoning-1' },
        { type: 'reasoning-delta', id: 'reasoning-1', delta: 'hmm' },
        { type: 'reasoning-end', id: 'reasoning-1' },
        { type: 'text-start', id: 'text-2' },
        { type: 'text-delta', id: 'text-2', delta: 'Looking' },
        { type: 'text-end', id: 'text-2' },
        { type: 'tool-input-start', toolCallId: 'c1', toolName: 'search' },
        { type: 'tool-input-available', toolCallId: 'c1', toolName: 'search', input: { q: 'x' } },
        { type: 'data-state-patch', data: { patches: [{ op: 'add', path: '/n', value: 1 }] } },
        { type: 'data-skill_loaded', data: { name: 'pdf' } },
        { type: 'tool-output-available', toolCallId: 'c1', output: { hits: 2 } },
        { type: 'finish-step' },
        { type: 'start-step' },
        { type: 'text-start', id: 'text-3' },
        { type: 'text-delta', id: 'text-3', delta: 'Done' },
        { type: 'text-end', id: 'text-3' },
        { type: 'finish-step' },
        { type: 'data-output', data: { output: { answer: 42 } } },
        { type: 'finish', finishReason: 'stop' },
      ],
    },
    {
      name: 'an approval request, then a denial',
      chunks: [
        chunk(1, { type: 'tool_approval_request', toolCallId: 'c2', toolName: 'pay', arguments: { amount: 5 }, approvalId: 'a2' }),
        chunk(1, { type: 'tool_end', toolCallId: 'c2', toolName: 'pay', error: 'Tool call was not approved by the user' }),
      ],
      expected: [
        { type: 'start', messageId: 'm' },
        { type: 'start-step' },
        { type: 'tool-input-start', toolCallId: 'c2', toolName: 'pay' },
        { type: 'tool-input-available', toolCallId: 'c2', toolName: 'pay', input: { amount: 5 } },
        { type: 'tool-approval-request', approvalId: 'a2', toolCallId: 'c2' },
        { type: 'tool-output-denied', toolCallId: 'c2' },
        { type: 'finish-step' },
        { type: 'finish', finishReason: 'stop' },
      ],
    },
    {
      name: 'a failed tool, then the run fails',
      chunks: [
        chunk(1, { type: 'tool_end', toolCallId: 'c3', toolName: 'nope', error: 'Unknown tool' }),
        chunk(1, { type: 'error', error: 'Run failed', recoverable: false }),
      ],
      expected: [
        { type: 'start', messageId: 'm' },
        { type: 'start-step' },
        { type: 'tool-input-start', toolCallId: 'c3', toolName: 'nope' },
        { type: 'tool-input-available', toolCallId: 'c3', toolName: 'nope', input: {} },
        { type: 'tool-output-error', toolCallId: 'c3', errorText: 'Unknown tool' },
        { type: 'finish-step' },
        { type: 'error', errorText: 'Run failed' },
        { type: 'finish', finishReason: 'error' },
      ],
    },
    {
      name: 'an interrupt ends with abort; sub-agent chunks become one data part, their text is not shown',
      chunks: [
        chunk(1, { type: 'subagent_start', subSessionId: 'child', subAgentType: 'helper', callId: 'c4' }),
        text(1, 'child text', 'child'),
        chunk(1, { type: 'subagent_end', subSessionId: 'child', subAgentType: 'helper', callId: 'c4', result: 'ok' }),
        chunk(1, { type: 'run_interrupted', runId: 'r1', reason: 'stop' }),
      ],
      expected: [
        { type: 'start', messageId: 'm' },
        { type: 'data-subagent', id: 'child', data: { status: 'running', agentType: 'helper', subSessionId: 'child', toolCallId: 'c4' } },
        { type: 'data-subagent', id: 'child', data: { status: 'completed', agentType: 'helper', subSessionId: 'child', toolCallId: 'c4', result: 'ok' } },
        { type: 'abort', reason: 'stop' },
        { type: 'finish', finishReason: 'other' },
      ],
    },
  ];
  for (const { name, chunks, expected } of cases) {
    it(name, () => {
      expect(mapStreamChunksToUI(chunks, { rootAgentId: ROOT }, { messageId: 'm' })).toEqual(expected);
    });
  }

  it('does not repeat the input chunks of a call the client already shows (a continuation after approval)', () => {
    const ui = mapStreamChunksToUI(
      [chunk(3, { type: 'tool_start', toolCallId: 'c5', toolName: 'pay', arguments: { amount: 5 } }), chunk(3, { type: 'tool_end', toolCallId: 'c5', toolName: 'pay', result: { paid: true } })],
      { rootAgentId: ROOT, knownToolCalls: { c5: 'approval' } },
    );
    expect(ui).toEqual([{ type: 'start' }, { type: 'start-step' }, { type: 'tool-output-available', toolCallId: 'c5', output: { paid: true } }, { type: 'finish-step' }, { type: 'finish', finishReason: 'stop' }]);
  });
});

describe('UI chunks read by ai readUIMessageStream', () => {
  it('a retried LLM step (step_reset mid-text) yields exactly the final text, live and when replayed after cleanup', async () => {
    const live = [text(1, 'I think'), text(1, ' the ans'), chunk(1, { type: 'step_reset', attempt: 2 }), text(1, 'The answer'), text(1, ' is 4.')];
    const message = await finalMessage(mapStreamChunksToUI(live, { rootAgentId: ROOT }, { messageId: 'm' }));
    expect(textOf(message)).toBe('The answer is 4.');
    expect(message.parts.filter((part) => part.type === 'text')).toHaveLength(1);
    // A reader that connects after cleanupToStep sees only the reset and the retried attempt.
    const replay = await finalMessage(mapStreamChunksToUI(live.slice(2), { rootAgentId: ROOT }, { messageId: 'm' }));
    expect(replay.parts).toEqual(message.parts);
  });

  it('text chunks held in one step are never split by the incremental mapper, whatever the reset position', async () => {
    const deltas = ['a', 'b', 'c', 'd'];
    for (let resetAt = 0; resetAt <= deltas.length; resetAt += 1) {
      const mapper = new UIMessageChunkMapper({ rootAgentId: ROOT });
      const ui: UIMessageChunk[] = [...mapper.start()];
      deltas.slice(0, resetAt).forEach((delta) => ui.push(...mapper.map(text(1, delta))));
      ui.push(...mapper.map(chunk(1, { type: 'step_reset', attempt: 2 })));
      deltas.forEach((delta) => ui.push(...mapper.map(text(1, delta))));
      ui.push(...mapper.map(chunk(1, { type: 'tool_start', toolCallId: `t${resetAt}`, toolName: 'x', arguments: {} })));
      ui.push(...mapper.finish('tool-calls'));
      expect(textOf(await finalMessage(ui))).toBe('abcd');
    }
  });

  it('an approval request, answered on the client, continues the same message with the tool output', async () => {
    const first = await finalMessage(
      mapStreamChunksToUI([text(1, 'Paying.'), chunk(1, { type: 'tool_approval_request', toolCallId: 'p1', toolName: 'pay', arguments: { amount: 9 }, approvalId: 'p1' })], { rootAgentId: ROOT }, { messageId: 'm', finishReason: 'tool-calls' }),
    );
    const tool = first.parts.find((part) => part.type === 'tool-pay');
    expect(tool).toMatchObject({ state: 'approval-requested', input: { amount: 9 }, approval: { id: 'p1' } });
    const answered: UIMessage = { ...first, parts: first.parts.map((part) => (part.type === 'tool-pay' ? { ...part, state: 'approval-responded', approval: { id: 'p1', approved: true } } : part)) } as UIMessage;
    const continued = await finalMessage(
      mapStreamChunksToUI(
        [chunk(1, { type: 'tool_start', toolCallId: 'p1', toolName: 'pay', arguments: { amount: 9 } }), chunk(1, { type: 'tool_end', toolCallId: 'p1', toolName: 'pay', result: { ok: true } }), text(2, 'Paid.')],
        { rootAgentId: ROOT, knownToolCalls: { p1: 'approval' } },
      ),
      answered,
    );
    expect(continued.parts.filter((part) => part.type === 'tool-pay')).toEqual([expect.objectContaining({ state: 'output-available', output: { ok: true } })]);
    expect(textOf(continued)).toBe('Paying.Paid.');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import type { MockLLMResponse } from '../../../src/llm/mock/mock-llm-response.js';
import type { StoredMessage } from '../../../src/types/message.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM, sleep } from './executor-test-kit.js';

const wait = defineTool({
  name: 'wait',
  description: 'Wait, then echo',
  parameters: z.object({ label: z.string(), ms: z.number().int().nonnegative() }),
  execute: async ({ label, ms }) => {
    await sleep(ms);
    return label;
  },
});

const agent = defineAgent({
  name: 'ledger_agent',
  systemPrompt: 'Work, then finish.',
  tools: [wait],
  outputSchema: z.object({ total: z.number() }),
  maxSteps: 6,
});

const llm = scriptedLLM();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('executor_message_ids', llm.adapter);
});
afterAll(async () => {
  await runtime?.shutdown();
});

/** Step 1: two parallel tools (the second finishes first); 2: unknown + valid tool; 3: text (reminder); 4: __finish__. */
const TURN: Array<MockLLMResponse> = [
  {
    type: 'tool_calls',
    text: 'Working.',
    toolCalls: [
      { id: 'slow', name: 'wait', arguments: { label: 'slow', ms: 150 } },
      { id: 'quick', name: 'wait', arguments: { label: 'quick', ms: 0 } },
    ],
  },
  {
    type: 'tool_calls',
    toolCalls: [
      { id: 'ghost', name: 'missing_tool', arguments: {} },
      { id: 'again', name: 'wait', arguments: { label: 'again', ms: 0 } },
    ],
  },
  { type: 'text', text: 'I think we are done.' },
  { type: 'structured_output', id: 'done', output: { total: 3 } },
];

/** [id, role, toolCallId-or-content] of each message. */
function ledger(messages: readonly StoredMessage[]): Array<[string, string, unknown]> {
  return messages.map((message) => [message.id, message.role, message.role === 'tool' ? message.toolCallId : message.content]);
}

describe('message ids and history order', () => {
  it('derives every id from (runId, step, index) and stores the history in exact conversation order', async () => {
    llm.use((_input, callIndex) => TURN[callIndex]);
    const handle = await runtime.executor.execute(agent, 'do the work', { sessionId: 'ids-1' });
    expect(await handle.result()).toMatchObject({ status: 'completed', output: { total: 3 }, stepCount: 4 });

    const run = handle.runId;
    const { messages } = await runtime.stateStore.getMessages('ids-1');
    expect(ledger(messages)).toEqual([
      [`${run}:0:0`, 'user', 'do the work'],
      [`${run}:1:0`, 'assistant', 'Working.'],
      [`${run}:1:1`, 'tool', 'slow'],
      [`${run}:1:2`, 'tool', 'quick'],
      [`${run}:2:0`, 'assistant', ''],
      [`${run}:2:1`, 'tool', 'ghost'],
      [`${run}:2:2`, 'tool', 'again'],
      [`${run}:3:0`, 'assistant', 'I think we are done.'],
      [`${run}:3:1`, 'user', expect.stringContaining('__finish__')],
      [`${run}:4:0`, 'assistant', ''],
      [`${run}:4:1`, 'tool', 'done'],
    ]);
    expect(messages.map((message) => message.sequence)).toEqual(messages.map((_, index) => index + 1));
    expect(messages[1]).toMatchObject({ toolCalls: [{ id: 'slow' }, { id: 'quick' }] });
    expect(messages[5]).toMatchObject({ isError: true });
    expect(messages[6]).toMatchObject({ content: 'again' });

    // The next LLM call saw exactly the stored history (after the system prompt).
    const lastInput = llm.adapter.calls[3]!.messages;
    expect(lastInput[0]?.role).toBe('system');
    expect(lastInput.slice(1).map((message) => message.id)).toEqual(messages.slice(0, 9).map((message) => message.id));
  });

  it('a second turn appends under its own runId and never rewrites earlier messages', async () => {
    const before = (await runtime.stateStore.getMessages('ids-1')).messages;
    llm.use((_input, callIndex) => (callIndex === 0 ? { type: 'structured_output', id: 'done-2', output: { total: 4 } } : undefined));
    const handle = await runtime.executor.execute(agent, 'once more', { sessionId: 'ids-1' });
    await handle.result();

    const { messages } = await runtime.stateStore.getMessages('ids-1');
    expect(messages.slice(0, before.length)).toEqual(before);
    const run = handle.runId;
    expect(ledger(messages.slice(before.length))).toEqual([
      [`${run}:0:0`, 'user', 'once more'],
      [`${run}:1:0`, 'assistant', ''],
      [`${run}:1:1`, 'tool', 'done-2'],
    ]);
    expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);
  });
});

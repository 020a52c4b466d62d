/**
 * Agents and a scripted model of the console API tests. The root agent `desk` reads the LAST user message's prefix:
 * `approve:` calls the approval-gated `pay`, `client:` the client tool `ask_user`, `slow<ms>:` the slow tool,
 * `big:` `echo_big` (large arguments, result and state), `delegate: <task>` the sub-agent `helper` (which calls `pay`
 * itself when its task mentions pay), `fail:` fails its first model call per session (not retryable); anything else
 * is echoed. Once a tool result follows that message, it answers `Tool said: <the last result as JSON>`.
 */
import { z } from 'zod';
import { createSubAgentTool, defineAgent, defineTool } from '../../../../src/agent/index.js';
import type { LLMAdapter } from '../../../../src/llm/adapter.js';
import { MockLLMAdapter } from '../../../../src/llm/mock-llm-adapter.js';
import type { MockLLMResponse } from '../../../../src/llm/mock/mock-llm-response.js';
import type { LLMGenerateInput } from '../../../../src/types/llm.js';

export const TOOL_SAID = 'Tool said: ';
export const BIG_ARGUMENT = 'x'.repeat(5_000);
export const BIG_RESULT = 'y'.repeat(6_000);
export const BIG_NOTES = 'n'.repeat(3_000);

const pay = defineTool({
  name: 'pay',
  description: 'Pay an amount',
  parameters: z.object({ amount: z.number() }),
  requireApproval: true,
  execute: async ({ amount }) => ({ paid: amount }),
});
const askUser = defineTool({ name: 'ask_user', description: 'Ask the user', parameters: z.object({ question: z.string() }), execute: 'client' });
const slowTool = defineTool({
  name: 'slow_tool',
  description: 'Takes a while',
  parameters: z.object({ ms: z.number() }),
  execute: async ({ ms }, context) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      context.abortSignal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
    return { waited: ms };
  },
});
const echoBig = defineTool({
  name: 'echo_big',
  description: 'Echo a large text',
  parameters: z.object({ text: z.string() }),
  execute: async (_input, context) => {
    context.updateState((draft) => {
      draft.notes = BIG_NOTES;
    });
    return { echo: BIG_RESULT };
  },
});

/** The sub-agent: answers through `__finish__`, after `pay` when its task mentions pay. */
export const helper = defineAgent({ name: 'helper', systemPrompt: 'Help the desk.', tools: [pay], outputSchema: z.object({ answer: z.string() }), maxSteps: 3 });

/** The root agent. */
export const desk = defineAgent({
  name: 'desk',
  description: 'The console test desk.',
  systemPrompt: 'Serve.',
  tools: [pay, askUser, slowTool, echoBig, createSubAgentTool(helper, z.object({ task: z.string() }))],
  stateSchema: z.object({ notes: z.string().default('') }),
  maxSteps: 5,
});

/** The last user message's text and the messages after it. */
function lastTurn(input: LLMGenerateInput): { text: string; after: LLMGenerateInput['messages'] } {
  const index = input.messages.map((message) => message.role).lastIndexOf('user');
  const user = input.messages[index];
  return { text: user?.role === 'user' ? user.content : '', after: input.messages.slice(index + 1) };
}

function deskAnswer(input: LLMGenerateInput): MockLLMResponse {
  const { text, after } = lastTurn(input);
  const result = after.filter((message) => message.role === 'tool').at(-1);
  if (result?.role === 'tool') return { type: 'text', text: `${TOOL_SAID}${JSON.stringify(result.content)}` };
  if (text.startsWith('approve:')) return { type: 'tool_calls', text: 'I will pay.', toolCalls: [{ name: 'pay', arguments: { amount: 5 } }] };
  if (text.startsWith('client:')) return { type: 'tool_calls', toolCalls: [{ name: 'ask_user', arguments: { question: 'Which city?' } }] };
  if (text.startsWith('big:')) return { type: 'tool_calls', thinking: 'Echo it.', toolCalls: [{ name: 'echo_big', arguments: { text: BIG_ARGUMENT } }] };
  const delegate = /^delegate:\s*(.*)$/s.exec(text);
  if (delegate !== null) return { type: 'tool_calls', toolCalls: [{ name: 'subagent__helper', arguments: { task: delegate[1] ?? '' } }] };
  const slow = /^slow(\d+):/.exec(text);
  if (slow !== null) return { type: 'tool_calls', toolCalls: [{ name: 'slow_tool', arguments: { ms: Number(slow[1]) } }] };
  return { type: 'text', text: `echo ${text}` };
}

function helperAnswer(input: LLMGenerateInput): MockLLMResponse {
  const { text, after } = lastTurn(input);
  const paid = after.some((message) => message.role === 'tool');
  if (text.includes('pay') && !paid) return { type: 'tool_calls', toolCalls: [{ name: 'pay', arguments: { amount: 7 } }] };
  return { type: 'structured_output', output: { answer: paid ? 'helped after paying' : 'helped' } };
}

/** The scripted model of both agents (see the module comment). */
export function consoleTestModel(): LLMAdapter {
  const failedOnce = new Set<string>();
  const scripted = new MockLLMAdapter((input): MockLLMResponse => (input.agentType === 'helper' ? helperAnswer(input) : deskAnswer(input)));
  return {
    generateStep: async (input, callbacks) => {
      const session = input.sessionId ?? '';
      if (lastTurn(input).text.startsWith('fail:') && !failedOnce.has(session)) {
        failedOnce.add(session);
        return new MockLLMAdapter([{ type: 'error', message: 'The scripted model fails once.', retryable: false }]).generateStep(input, callbacks);
      }
      return scripted.generateStep(input, callbacks);
    },
  };
}

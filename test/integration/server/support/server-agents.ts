/**
 * Agents and a scripted model shared by the agent-server tests and their second server process. The model
 * answers by the first user message's prefix: `client:` asks a client tool, `approve:` calls an
 * approval-gated tool, `slow:` (or `slow<ms>:`) runs a slow tool, `long:` streams a long text in two steps,
 * `loop:` calls the slow tool until maxSteps fails the run, `delegate:` / `fragile:` / `hasty:` / `cut:` call the coordinator's remote tools with the rest as task (a JSON `{"task"}` input
 * reads as its task); otherwise it echoes. Once a tool result is in the history it answers with a fixed closing
 * text (the coordinator: `Remote said: ` + the remote tool's result).
 */
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../../src/agent/index.js';
import { LLMCallError } from '../../../../src/errors/index.js';
import type { LLMAdapter } from '../../../../src/llm/adapter.js';
import { MockLLMAdapter } from '../../../../src/llm/mock-llm-adapter.js';
import type { MockLLMResponse } from '../../../../src/llm/mock/mock-llm-response.js';
import type { LLMGenerateInput } from '../../../../src/types/llm.js';

export const LONG_ANSWER = Array.from({ length: 40 }, (_, index) => `word${index}`).join(' ');
export const FIRST_STEP_TEXT = 'Let me look that up.';
export const CLOSING_TEXT = 'All done.';
/** The coordinator's closing text starts with this, followed by its remote tool's result. */
export const DELEGATED_PREFIX = 'Remote said: ';

/** A client-executed tool: the browser (or a test) answers it. */
export const askUser = defineTool({ name: 'ask_user', description: 'Ask the user', parameters: z.object({ question: z.string() }), execute: 'client' });
/** A tool that waits for an approval, then pays. */
export const pay = defineTool({
  name: 'pay',
  description: 'Pay an amount',
  parameters: z.object({ amount: z.number() }),
  requireApproval: true,
  execute: async ({ amount }) => ({ paid: amount }),
});
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

export const assistant = defineAgent({ name: 'assistant', systemPrompt: 'Help.', tools: [askUser, pay, slowTool], maxSteps: 5 });

/** The first user message; a remote sub-agent's JSON input `{"task": …}` reads as its task. */
function firstUserText(input: LLMGenerateInput): string {
  const user = input.messages.find((message) => message.role === 'user');
  const text = typeof user?.content === 'string' ? user.content : '';
  if (!text.startsWith('{')) return text;
  try {
    const task = (JSON.parse(text) as { task?: unknown }).task;
    return typeof task === 'string' ? task : text;
  } catch {
    return text;
  }
}

export const FLAKY_PARTIAL = 'Half an ans';
export const FLAKY_ANSWER = 'The retried answer, exactly once.';

/**
 * The scripted model (see the module comment). `flaky:` streams part of an answer, then fails with a
 * retryable error the first time per session: the runtime retries the LLM step (`step_reset`).
 */
export function serverTestModel(): LLMAdapter {
  const failedOnce = new Set<string>();
  const scripted = scriptedModel();
  return {
    generateStep: async (input, callbacks) => {
      if (!firstUserText(input).startsWith('flaky:')) return scripted.generateStep(input, callbacks);
      const session = input.sessionId ?? '';
      if (!failedOnce.has(session)) {
        failedOnce.add(session);
        for (const word of FLAKY_PARTIAL.split(' ')) await callbacks?.onTextDelta?.(`${word} `);
        await new Promise((resolve) => setTimeout(resolve, 300)); // the partial text reaches live readers
        throw new LLMCallError('The provider is overloaded.', { retryable: true, statusCode: 529 });
      }
      return new MockLLMAdapter([{ type: 'text', text: FLAKY_ANSWER, chunkDelayMs: 5 }]).generateStep(input, callbacks);
    },
  };
}

function scriptedModel(): MockLLMAdapter {
  return new MockLLMAdapter((input): MockLLMResponse => {
    const text = firstUserText(input);
    const toolResults = input.messages.filter((message) => message.role === 'tool');
    if (text.startsWith('long:')) {
      if (toolResults.length === 0) return { type: 'tool_calls', text: FIRST_STEP_TEXT, toolCalls: [{ name: 'slow_tool', arguments: { ms: 1_200 } }] };
      return { type: 'text', text: LONG_ANSWER, chunkDelayMs: 15 };
    }
    const delegate = /^(delegate|fragile|hasty|cut):\s*(.*)$/s.exec(text);
    if (delegate !== null) {
      const tool = delegate[1] === 'delegate' ? 'remote__assistant' : `remote_${delegate[1]}`;
      if (toolResults.length === 0) return { type: 'tool_calls', toolCalls: [{ name: tool, arguments: { task: delegate[2] ?? '' } }] };
      const result = toolResults[0];
      const content = result?.role === 'tool' ? result.content : '';
      return { type: 'text', text: `${DELEGATED_PREFIX}${typeof content === 'string' ? content : JSON.stringify(content)}` };
    }
    if (text.startsWith('loop:')) return { type: 'tool_calls', toolCalls: [{ name: 'slow_tool', arguments: { ms: 300 } }] }; // fails at maxSteps
    if (toolResults.length > 0) return { type: 'text', text: CLOSING_TEXT };
    if (text.startsWith('client:')) return { type: 'tool_calls', toolCalls: [{ name: 'ask_user', arguments: { question: 'Which city?' } }] };
    if (text.startsWith('approve:')) return { type: 'tool_calls', text: 'I will pay.', toolCalls: [{ name: 'pay', arguments: { amount: 5 } }] };
    const slow = /^slow(\d*):/.exec(text);
    if (slow !== null) return { type: 'tool_calls', toolCalls: [{ name: 'slow_tool', arguments: { ms: slow[1] === '' ? 2_000 : Number(slow[1]) } }] };
    return { type: 'text', text: `echo ${text}`, chunkDelayMs: 5 };
  });
}

/** Bearer tokens of the test principals. */
export const TOKENS: Readonly<Record<string, string>> = { 'token-alice': 'alice', 'token-bob': 'bob' };

/** The tests' `authenticate`: `Authorization: Bearer <token>` of a known token, else null (401). */
export function authenticateBearer(request: Request): { id: string } | null {
  const token = request.headers.get('authorization')?.replace(/^Bearer /, '');
  const id = token === undefined ? undefined : TOKENS[token];
  return id === undefined ? null : { id };
}

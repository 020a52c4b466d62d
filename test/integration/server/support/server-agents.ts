/**
 * Agents and a scripted model shared by the agent-server tests and their second server process. The model
 * answers by the first user message's prefix: `client:` asks a client tool, `approve:` calls an
 * approval-gated tool, `slow:` runs a slow tool, `long:` streams a long text in two steps; otherwise it
 * echoes. Once a tool result is in the history it answers with a fixed closing text.
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

const askUser = defineTool({ name: 'ask_user', description: 'Ask the user', parameters: z.object({ question: z.string() }), execute: 'client' });
const pay = defineTool({
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

function firstUserText(input: LLMGenerateInput): string {
  const user = input.messages.find((message) => message.role === 'user');
  return typeof user?.content === 'string' ? user.content : '';
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
    if (toolResults.length > 0) return { type: 'text', text: CLOSING_TEXT };
    if (text.startsWith('client:')) return { type: 'tool_calls', toolCalls: [{ name: 'ask_user', arguments: { question: 'Which city?' } }] };
    if (text.startsWith('approve:')) return { type: 'tool_calls', text: 'I will pay.', toolCalls: [{ name: 'pay', arguments: { amount: 5 } }] };
    if (text.startsWith('slow:')) return { type: 'tool_calls', toolCalls: [{ name: 'slow_tool', arguments: { ms: 2_000 } }] };
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

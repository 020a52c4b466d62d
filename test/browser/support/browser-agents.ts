/**
 * The browser tests' agent and scripted model. `clerk` reads the last user message: `approve:` streams a short text
 * and calls the approval-gated `pay`; `slow:` streams {@link SLOW_TEXT} word by word; anything else is echoed. After
 * `pay`'s result it streams {@link PAID_TEXT}. Deltas are {@link CHUNK_DELAY_MS} apart, so a page sees text arrive.
 */
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import type { LLMAdapter } from '../../../src/llm/adapter.js';
import type { LLMStreamCallbacks } from '../../../src/types/llm.js';
import { MockLLMAdapter } from '../../../src/llm/mock-llm-adapter.js';
import { consoleTestModel, desk } from '../../integration/server/support/console-agents.js';
import { pay } from '../../integration/server/support/server-agents.js';
import { boss } from '../../integration/companions/companion-kit.js';

/** The console API tests' `desk` (client tool, slow tool, sub-agent `helper`, a failing first call) for the actions. */
export { desk };
/** The companion tests' `boss`: here it spawns the non-blocking companion `watcher` named `w` (see {@link browserModel}). */
export { boss };

export const CHUNK_DELAY_MS = 60;
/** Every stream (and `lookup` call) waits here after its {@link HELD_AFTER}th text delta; open unless a test holds it. */
let gate: Promise<void> = Promise.resolve();
const HELD_AFTER = 4;
const HOLD_AT_MOST_MS = 15_000;
export const ASK_TEXT = 'I will pay the invoice once you approve.';
export const PAID_TEXT = 'Paid five euros. The invoice is settled and the receipt is filed under this session for later review.';
/** ~60 words: ~3.6 s of streaming; {@link holdSlowWork} holds it in the middle for as long as a test needs. */
export const SLOW_TEXT = Array.from({ length: 60 }, (_, index) => `word${index + 1}`).join(' ');


/** A tool that takes {@link LOOKUP_MS} (and waits for {@link holdSlowWork}'s release): a chat page reloads while it runs. */
export const LOOKUP_MS = 2_500;
export const LOOKUP_ASK = 'Looking it up.';
export const LOOKUP_TEXT = 'Found it: the invoice was paid on Monday.';
const lookup = defineTool({
  name: 'lookup',
  description: 'Look something up (slowly)',
  parameters: z.object({ query: z.string() }),
  execute: async ({ query }) => {
    await Promise.all([new Promise((done) => setTimeout(done, LOOKUP_MS)), gate]);
    return { query, found: true };
  },
});

export const clerk = defineAgent({ name: 'clerk', description: 'Pays invoices after approval.', systemPrompt: 'Serve.', tools: [pay, lookup], maxSteps: 4 });

export function clerkModel(): LLMAdapter {
  return new MockLLMAdapter((input) => {
    const index = input.messages.map((message) => message.role).lastIndexOf('user');
    const user = input.messages[index];
    const text = user?.role === 'user' ? user.content : '';
    const answered = input.messages.slice(index + 1).some((message) => message.role === 'tool');
    if (answered && text.startsWith('lookup:')) return { type: 'text', text: LOOKUP_TEXT, chunkDelayMs: CHUNK_DELAY_MS };
    if (text.startsWith('lookup:')) return { type: 'tool_calls', text: LOOKUP_ASK, toolCalls: [{ name: 'lookup', arguments: { query: text.slice(7).trim() } }] };
    if (answered) return { type: 'text', text: PAID_TEXT, chunkDelayMs: CHUNK_DELAY_MS };
    if (text.startsWith('approve:')) return { type: 'tool_calls', text: ASK_TEXT, chunkDelayMs: CHUNK_DELAY_MS, toolCalls: [{ name: 'pay', arguments: { amount: 5 } }] };
    if (text.startsWith('slow:')) return { type: 'text', text: SLOW_TEXT, chunkDelayMs: CHUNK_DELAY_MS };
    return { type: 'text', text: `You said: ${text}` };
  });
}

/** `boss` spawns its companion `w` (a `watcher`), then says `spawned`; the watcher streams {@link SLOW_TEXT}, then answers. */
function companionModel(): LLMAdapter {
  return new MockLLMAdapter((input) => {
    if (input.agentType === 'watcher') return { type: 'structured_output', output: { seen: 'all' }, text: SLOW_TEXT, chunkDelayMs: CHUNK_DELAY_MS };
    if (input.messages.some((message) => message.role === 'tool')) return { type: 'text', text: 'spawned' };
    return { type: 'tool_calls', toolCalls: [{ name: 'companion__spawnAgent', arguments: { agentType: 'watcher', name: 'w', message: 'watch' } }] };
  });
}

/** One model for every agent: `clerk` by {@link clerkModel}, `boss` and its companion by `companionModel`, `desk` and its `helper` by the console API tests' model. */
export function browserModel(): LLMAdapter {
  const forClerk = clerkModel();
  const forCompanions = companionModel();
  const forDesk = consoleTestModel();
  const pick = (agentType: string | undefined): LLMAdapter => (agentType === 'clerk' ? forClerk : agentType === 'boss' || agentType === 'watcher' ? forCompanions : forDesk);
  return { generateStep: (input, callbacks) => pick(input.agentType).generateStep(input, callbacks && held(callbacks)) };
}


/**
 * Holds every text stream after its fourth word, and `lookup` calls, until the returned function is called (or 15 s
 * pass), so a test sees a partial answer for sure, however slowly its page loads.
 */
export function holdSlowWork(): () => void {
  let release!: () => void;
  gate = new Promise<void>((done) => {
    release = done;
    setTimeout(done, HOLD_AT_MOST_MS).unref();
  });
  return release;
}

function held(callbacks: LLMStreamCallbacks): LLMStreamCallbacks {
  let deltas = 0;
  return {
    ...callbacks,
    onTextDelta: async (delta) => {
      await callbacks.onTextDelta?.(delta);
      deltas += 1;
      if (deltas === HELD_AFTER) await gate;
    },
  };
}

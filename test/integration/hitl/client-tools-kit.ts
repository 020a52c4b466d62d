import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';

/** How often the server tools of the client-tools agent really ran. */
export const counts = { serverRuns: 0, transfers: 0 };

const pickCity = defineTool({ name: 'pick_city', description: 'Ask the user', parameters: z.object({ prompt: z.string() }), execute: 'client' });
const quickPick = defineTool({ name: 'quick_pick', description: 'Ask fast', parameters: z.object({}), execute: 'client', timeoutMs: 300 });
const lookup = defineTool({
  name: 'lookup',
  description: 'Server lookup',
  parameters: z.object({ q: z.string() }),
  execute: async ({ q }) => {
    counts.serverRuns += 1;
    return { found: q };
  },
});
const transfer = defineTool({
  name: 'transfer',
  description: 'Move money',
  parameters: z.object({ amount: z.number() }),
  requireApproval: ({ amount }) => {
    if (amount < 0) throw new Error('predicate blew up');
    return amount > 100;
  },
  execute: async ({ amount }) => {
    counts.transfers += 1;
    return { moved: amount };
  },
});

/** The agent of the client-tools tests: client tools (one with a deadline), a server lookup, a gated transfer. */
export const agent = defineAgent({ name: 'hitl_agent', systemPrompt: 'Help.', tools: [pickCity, quickPick, lookup, transfer], maxSteps: 6 });

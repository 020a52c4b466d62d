import { z } from 'zod';
import { createSubAgentTool, defineAgent, defineTool } from '../../../src/agent/index.js';
import type { MockLLMResponse } from '../../../src/llm/mock/mock-llm-response.js';
import type { LLMGenerateInput } from '../../../src/types/llm.js';

/** How many times each gated tool really ran. */
export const executions = { transfer: 0 };

/** A server tool behind an approval gate. */
export const transfer = defineTool({
  name: 'transfer',
  description: 'Move money',
  parameters: z.object({ amount: z.number() }),
  requireApproval: true,
  execute: async ({ amount }) => {
    executions.transfer += 1;
    return { moved: amount };
  },
});

/** A client-executed tool. */
export const askUser = defineTool({ name: 'ask_user', description: 'Ask the user', parameters: z.object({ question: z.string() }), execute: 'client' });

/** Grandchild: asks the user (client tool), then finishes with the answer. */
export const asker = defineAgent({ name: 'asker', systemPrompt: 'Ask.', tools: [askUser], outputSchema: z.object({ answer: z.string() }), maxSteps: 3 });

/** Child: an approval-gated transfer, then optionally delegates to the asker, then finishes. */
export const banker = defineAgent({
  name: 'banker',
  systemPrompt: 'Bank.',
  tools: [transfer, createSubAgentTool(asker, z.object({ question: z.string() }))],
  outputSchema: z.object({ receipt: z.string() }),
  maxSteps: 4,
});

/** Root agent. */
export const frontDesk = defineAgent({
  name: 'front_desk',
  systemPrompt: 'Delegate.',
  tools: [createSubAgentTool(banker, z.object({ amount: z.number(), ask: z.boolean() }))],
  maxSteps: 3,
});

function userJson(input: LLMGenerateInput): Record<string, unknown> {
  const message = input.messages.find((candidate) => candidate.role === 'user');
  return typeof message?.content === 'string' ? (JSON.parse(message.content) as Record<string, unknown>) : {};
}

function lastResult(input: LLMGenerateInput): unknown {
  return input.messages.filter((message) => message.role === 'tool').at(-1)?.content;
}

/** The script of the tree: front desk → banker (approval, then asker when `ask`) → asker (client tool). */
export function treeScript(input: LLMGenerateInput): MockLLMResponse | undefined {
  const step = input.step ?? 0;
  const results = input.messages.filter((message) => message.role === 'tool').length;
  if (input.agentType === 'front_desk') {
    if (results === 0) return { type: 'tool_calls', toolCalls: [{ id: 'desk-1', name: 'subagent__banker', arguments: { amount: 500, ask: (input.sessionId ?? '').includes('ask') } }] };
    return { type: 'text', text: `desk done: ${JSON.stringify(lastResult(input))}` };
  }
  if (input.agentType === 'banker') {
    const args = userJson(input);
    if (results === 0) return { type: 'tool_calls', toolCalls: [{ id: `tx-${input.sessionId}`, name: 'transfer', arguments: { amount: args.amount } }] };
    if (results === 1 && args.ask === true) return { type: 'tool_calls', toolCalls: [{ id: `ask-${input.sessionId}`, name: 'subagent__asker', arguments: { question: 'PIN?' } }] };
    return { type: 'structured_output', output: { receipt: JSON.stringify(lastResult(input)) } };
  }
  if (input.agentType === 'asker') {
    if (results === 0) return { type: 'tool_calls', toolCalls: [{ id: `q-${input.sessionId}`, name: 'ask_user', arguments: { question: String(userJson(input).question) } }] };
    return { type: 'structured_output', output: { answer: JSON.stringify(lastResult(input)) } };
  }
  return step > 0 ? undefined : undefined;
}

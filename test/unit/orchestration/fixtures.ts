import { z } from 'zod';

import { createSubAgentTool, defineAgent, defineTool } from '../../../src/agent/index.js';
import { createRemoteSubAgentTool } from '../../../src/remote/remote-sub-agent-tool.js';
import type { StepResult } from '../../../src/types/llm.js';
import type { ToolCall } from '../../../src/types/message.js';

/** Tools and agents shared by the orchestration tests. */
export const searchTool = defineTool({
  name: 'search',
  description: 'Search',
  parameters: z.object({ query: z.string().min(2), limit: z.number().int().default(3) }),
  execute: async () => [],
});
export const pickTool = defineTool({ name: 'pick', description: 'Pick', parameters: z.object({ options: z.array(z.string()) }), execute: 'client' });
export const payTool = defineTool({ name: 'pay', description: 'Pay', parameters: z.object({ amount: z.number() }), execute: async () => 'paid', requireApproval: true });
export const refundTool = defineTool({
  name: 'refund',
  description: 'Refund',
  parameters: z.object({ amount: z.number() }),
  execute: async () => 'refunded',
  requireApproval: ({ amount }) => amount > 10,
});
export const submitTool = defineTool({ name: 'submit', description: 'Submit', parameters: z.object({ report: z.string() }), execute: async ({ report }) => ({ report }), finishWith: true });
export const summarizer = defineAgent({ name: 'summarizer', systemPrompt: 'x', outputSchema: z.object({ summary: z.string() }) });
export const summarizeTool = createSubAgentTool(summarizer, z.object({ text: z.string() }));
/** Planning never calls the transport: it only routes the call. */
const unusedTransport = {
  start: () => Promise.reject(new Error('not called')),
  stream: () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('not called')) }) }),
  getStatus: () => Promise.reject(new Error('not called')),
  interrupt: () => Promise.reject(new Error('not called')),
  abort: () => Promise.reject(new Error('not called')),
};
export const researchTool = createRemoteSubAgentTool({ agentType: 'researcher', inputSchema: z.object({ topic: z.string() }), transport: unusedTransport });

export const outputSchema = z.object({ answer: z.string(), confidence: z.number().min(0).max(1) });

export const fullAgent = defineAgent({
  name: 'full',
  systemPrompt: 'You help.',
  tools: [searchTool, pickTool, payTool, refundTool, submitTool, summarizeTool, researchTool],
  outputSchema,
  persistentAgents: [{ agent: summarizer, mode: 'blocking' }],
});

export const textAgent = defineAgent({ name: 'texter', systemPrompt: 'Chat.', tools: [searchTool] });

/** A StepResult with the given tool calls (ids `c0`, `c1`, …). */
export function stepWith(calls: Array<Omit<ToolCall, 'id'> & { id?: string }>, text = ''): StepResult {
  return {
    text,
    toolCalls: calls.map((call, index) => ({ id: call.id ?? `c${index}`, name: call.name, arguments: call.arguments })),
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    finishReason: calls.length === 0 ? 'stop' : 'tool_calls',
  };
}

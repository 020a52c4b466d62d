import { z } from 'zod';
import { createSubAgentTool, defineAgent, defineTool, type ToolContext } from '../../../src/agent/index.js';
import type { LLMGenerateInput } from '../../../src/types/llm.js';
import type { MockLLMResponse } from '../../../src/llm/mock/mock-llm-response.js';
import type { StreamChunk } from '../../../src/types/stream.js';

/** Start/end of each tool execution and child LLM call, by id. */
export const spans = new Map<string, { start: number; end: number }>();

/** Sleep for `ms`. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A tool that waits `delayMs` and records its span. */
export const waitTool = defineTool({
  name: 'wait_for',
  description: 'Wait a while',
  parameters: z.object({ label: z.string(), delayMs: z.number().int().nonnegative() }),
  execute: async ({ label, delayMs }, context: ToolContext) => {
    const start = Date.now();
    await sleep(delayMs);
    spans.set(label ?? context.toolCallId, { start, end: Date.now() });
    return { waited: label };
  },
});

/** Lifecycle hook events of the summarizer's sessions: `[event, sessionId]`. */
export const childHookEvents: Array<[string, string]> = [];

/** Child: summarizes; its state accepts the call's arguments. Its own lifecycle hooks record their events. */
export const summarizer = defineAgent({
  name: 'summarizer',
  hooks: {
    onAgentStart: ({ sessionId }) => void childHookEvents.push(['start', sessionId]),
    onAgentComplete: ({ sessionId }) => void childHookEvents.push(['complete', sessionId]),
    onAgentFail: ({ sessionId }) => void childHookEvents.push(['fail', sessionId]),
  },
  systemPrompt: 'Summarize.',
  tools: [waitTool],
  stateSchema: z.object({ text: z.string().default(''), delayMs: z.number().default(0) }),
  outputSchema: z.object({ summary: z.string() }),
  maxSteps: 3,
});

/** Child whose state schema rejects the arguments (dispatch failure). */
export const picky = defineAgent({
  name: 'picky',
  systemPrompt: 'Picky.',
  stateSchema: z.object({ text: z.number() }),
  outputSchema: z.object({ ok: z.boolean() }),
});

/** Child with a small step budget. */
export const looper = defineAgent({ name: 'looper', systemPrompt: 'Loop.', tools: [waitTool], outputSchema: z.object({ done: z.boolean() }), maxSteps: 2 });

/** A child with its own sub-agent (depth 2). */
export const manager = defineAgent({
  name: 'manager',
  systemPrompt: 'Delegate to the summarizer.',
  tools: [createSubAgentTool(summarizer, z.object({ text: z.string(), delayMs: z.number() }))],
  outputSchema: z.object({ report: z.string() }),
  maxSteps: 3,
});

/** A finishWith tool: ends the parent's run with its result. */
export const report = defineTool({
  name: 'report',
  description: 'Finish with a report',
  parameters: z.object({ title: z.string() }),
  finishWith: true,
  execute: async ({ title }) => {
    spans.set('report', { start: Date.now(), end: Date.now() });
    return { title };
  },
});

/** The root agent. */
export const planner = defineAgent({
  name: 'planner',
  systemPrompt: 'Plan with helpers.',
  tools: [
    waitTool,
    report,
    createSubAgentTool(summarizer, z.object({ text: z.string(), delayMs: z.number() })),
    createSubAgentTool(picky, z.object({ text: z.string() })),
    createSubAgentTool(looper, z.object({ topic: z.string() })),
    createSubAgentTool(manager, z.object({ text: z.string() })),
  ],
  maxSteps: 4,
});

/** The tool results in an LLM input. */
export function toolResultsOf(input: LLMGenerateInput): Array<{ toolCallId: string; content: unknown; isError?: boolean }> {
  return input.messages.flatMap((message) => (message.role === 'tool' ? [{ toolCallId: message.toolCallId, content: message.content, ...(message.isError === true ? { isError: true } : {}) }] : []));
}

/** The user message text a child got. */
export function firstUserText(input: LLMGenerateInput): string {
  const message = input.messages.find((candidate) => candidate.role === 'user');
  return typeof message?.content === 'string' ? message.content : '';
}

/** Default child behaviour: summarizer waits `delayMs` in a tool (step 1), then finishes with the text upper-cased. */
export function childScript(input: LLMGenerateInput): MockLLMResponse | undefined {
  const args = JSON.parse(firstUserText(input) || '{}') as { text?: string; delayMs?: number; topic?: string };
  if (input.agentType === 'summarizer') {
    if (input.step === 1) return { type: 'tool_calls', toolCalls: [{ id: `w-${args.text}`, name: 'wait_for', arguments: { label: `child-${args.text}`, delayMs: args.delayMs ?? 0 } }] };
    return { type: 'structured_output', output: { summary: (args.text ?? '').toUpperCase() } };
  }
  if (input.agentType === 'looper') return { type: 'tool_calls', toolCalls: [{ name: 'wait_for', arguments: { label: `loop-${input.step}`, delayMs: 0 } }] };
  if (input.agentType === 'manager') {
    if (input.step === 1) return { type: 'tool_calls', toolCalls: [{ id: 'm-sub', name: 'subagent__summarizer', arguments: { text: `${args.text}-inner`, delayMs: 0 } }] };
    const inner = toolResultsOf(input)[0]?.content as { summary?: string } | undefined;
    return { type: 'structured_output', output: { report: `managed ${inner?.summary ?? '?'}` } };
  }
  return undefined;
}

/** Chunks of one agent. */
export function chunksOf(chunks: readonly StreamChunk[], agentId: string): StreamChunk[] {
  return chunks.filter((chunk) => chunk.agentId === agentId);
}

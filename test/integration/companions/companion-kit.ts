import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import type { MockLLMResponse } from '../../../src/llm/mock/mock-llm-response.js';
import type { SessionStateStore } from '../../../src/store/state-store.js';
import type { LLMGenerateInput } from '../../../src/types/llm.js';
import type { StoredMessage } from '../../../src/types/message.js';
import { lastUserText } from '../persistent/persistent-kit.js';

/** Blocking companion: answers `re: <message>`; a message containing "fail" makes its model call fail. */
export const researcher = defineAgent({ name: 'researcher', systemPrompt: 'Research.', outputSchema: z.object({ answer: z.string() }), maxSteps: 3 });

/** Non-blocking companion: answers `seen: <message>`; "slow" delays its model call 1.5 s, "stall" 30 s. */
export const watcher = defineAgent({ name: 'watcher', systemPrompt: 'Watch.', outputSchema: z.object({ seen: z.string() }), maxSteps: 3 });

/** The parent of these tests. */
export const boss = defineAgent({
  name: 'boss',
  systemPrompt: 'Delegate.',
  maxSteps: 6,
  persistentAgents: [
    { agent: researcher, mode: 'blocking' },
    { agent: watcher, mode: 'non-blocking' },
  ],
});

/** How the companions answer (a function of their last user message). */
export function companionReply(input: LLMGenerateInput): MockLLMResponse {
  const text = lastUserText(input);
  if (input.agentType === 'researcher') {
    if (text.includes('fail')) return { type: 'error', message: 'research backend down', retryable: false };
    return { type: 'structured_output', output: { answer: `re: ${text}` } };
  }
  const delayMs = text.includes('stall') ? 30_000 : text.includes('slow') ? 1_500 : 0;
  return { type: 'structured_output', output: { seen: text }, delayMs };
}

/** A parent script: its n-th model call (within the test) gets `steps[n]`, companions answer by `companionReply`. */
export function parentScript(steps: MockLLMResponse[]): (input: LLMGenerateInput) => MockLLMResponse | undefined {
  let parentCalls = 0;
  return (input) => {
    if (input.agentType !== 'boss') return companionReply(input);
    const next = steps[parentCalls];
    parentCalls += 1;
    return next ?? { type: 'text', text: 'all done' };
  };
}

/** A companion tool call of the parent. */
export function call(id: string, action: string, args: Record<string, unknown>): MockLLMResponse {
  return { type: 'tool_calls', toolCalls: [{ id, name: `companion__${action}`, arguments: args }] };
}

/** Several companion tool calls in one parent step. */
export function calls(...entries: Array<[string, string, Record<string, unknown>]>): MockLLMResponse {
  return { type: 'tool_calls', toolCalls: entries.map(([id, action, args]) => ({ id, name: `companion__${action}`, arguments: args })) };
}

/** The tool result message of a call in a session's history (parsed content). */
export async function toolResultOf(stateStore: SessionStateStore, sessionId: string, toolCallId: string): Promise<{ content: unknown; isError: boolean }> {
  const { messages } = await stateStore.getMessages(sessionId);
  const found = messages.find((message): message is Extract<StoredMessage, { role: 'tool' }> => message.role === 'tool' && message.toolCallId === toolCallId);
  if (found === undefined) throw new Error(`no tool result for ${toolCallId}`);
  const raw = found.content;
  let content: unknown = raw;
  if (typeof raw === 'string') {
    try {
      content = JSON.parse(raw);
    } catch {
      content = raw;
    }
  }
  return { content, isError: (found as { isError?: boolean }).isError === true };
}

/** A client-executed tool: a human confirms. */
export const confirm = defineTool({ name: 'confirm', description: 'Ask a human to confirm', parameters: z.object({ what: z.string() }), execute: 'client' });

/** A blocking companion that asks a human before it answers. */
export const clerk = defineAgent({ name: 'clerk', systemPrompt: 'Ask first.', tools: [confirm], outputSchema: z.object({ confirmed: z.unknown() }), maxSteps: 3 });

/** A parent whose only companion is the clerk. */
export const desk = defineAgent({ name: 'desk', systemPrompt: 'Delegate to the clerk.', maxSteps: 4, persistentAgents: [{ agent: clerk, mode: 'blocking' }] });

/** The clerk's answers: ask for confirmation, then finish with the human's answer. */
export function clerkReply(input: LLMGenerateInput): MockLLMResponse {
  const last = input.messages.at(-1);
  if (last?.role === 'tool') return { type: 'structured_output', output: { confirmed: last.content } };
  return { type: 'tool_calls', toolCalls: [{ id: `confirm-${input.sessionId ?? ''}`, name: 'confirm', arguments: { what: lastUserText(input) } }] };
}

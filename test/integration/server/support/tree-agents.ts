/**
 * A three-level agent tree for the `GET /status` tree tests, with a scripted model. The root `top` reads its last user
 * message: `deep: <task>` delegates to `middle`, which delegates the task to `leaf` (depth 2); `near: <task>` delegates
 * to `leaf` directly (depth 1); `both: <task>` calls `leaf` twice in one step; anything else is echoed. `leaf` calls
 * the approval-gated `pay` when its task mentions pay, the client tool `ask_user` when it mentions ask. Once a tool
 * result follows, each answers with it: `top` as `Top said: <result JSON>`, `middle` and `leaf` as `{ answer }`.
 */
import { z } from 'zod';
import { createSubAgentTool, defineAgent } from '../../../../src/agent/index.js';
import type { LLMAdapter } from '../../../../src/llm/adapter.js';
import { MockLLMAdapter } from '../../../../src/llm/mock-llm-adapter.js';
import type { MockLLMResponse } from '../../../../src/llm/mock/mock-llm-response.js';
import type { LLMGenerateInput } from '../../../../src/types/llm.js';
import { askUser, pay } from './server-agents.js';

export const TOP_SAID = 'Top said: ';

const answer = z.object({ answer: z.string() });
const task = z.object({ task: z.string() });

/** The deepest agent: waits for a human (approval or client tool), then answers with what it got. */
export const leaf = defineAgent({ name: 'leaf', systemPrompt: 'Do it.', tools: [pay, askUser], outputSchema: answer, maxSteps: 3 });
/** The middle agent: hands its task to `leaf`. */
export const middle = defineAgent({ name: 'middle', systemPrompt: 'Delegate.', tools: [createSubAgentTool(leaf, task)], outputSchema: answer, maxSteps: 3 });
/** The root agent. */
export const top = defineAgent({ name: 'top', systemPrompt: 'Lead.', tools: [createSubAgentTool(middle, task), createSubAgentTool(leaf, task)], maxSteps: 4 });

/** The last user message's text and the last tool result after it (as JSON). */
function lastTurn(input: LLMGenerateInput): { text: string; result: string | undefined } {
  const index = input.messages.map((message) => message.role).lastIndexOf('user');
  const user = input.messages[index];
  const tool = input.messages.slice(index + 1).filter((message) => message.role === 'tool').at(-1);
  const result = tool?.role === 'tool' ? JSON.stringify(tool.content) : undefined;
  return { text: user?.role === 'user' ? user.content : '', result };
}

function topAnswer(input: LLMGenerateInput): MockLLMResponse {
  const { text, result } = lastTurn(input);
  if (result !== undefined) return { type: 'text', text: `${TOP_SAID}${result}` };
  const order = /^(deep|near|both):\s*(.*)$/s.exec(text);
  if (order === null) return { type: 'text', text: `echo ${text}` };
  const work = { task: order[2] ?? '' };
  if (order[1] === 'deep') return { type: 'tool_calls', toolCalls: [{ name: 'subagent__middle', arguments: work }] };
  if (order[1] === 'near') return { type: 'tool_calls', toolCalls: [{ name: 'subagent__leaf', arguments: work }] };
  return { type: 'tool_calls', toolCalls: [{ name: 'subagent__leaf', arguments: work }, { name: 'subagent__leaf', arguments: work }] };
}

function middleAnswer(input: LLMGenerateInput): MockLLMResponse {
  const { text, result } = lastTurn(input);
  if (result !== undefined) return { type: 'structured_output', output: { answer: `middle got ${result}` } };
  return { type: 'tool_calls', toolCalls: [{ name: 'subagent__leaf', arguments: { task: text } }] };
}

function leafAnswer(input: LLMGenerateInput): MockLLMResponse {
  const { text, result } = lastTurn(input);
  if (result !== undefined) return { type: 'structured_output', output: { answer: `leaf got ${result}` } };
  if (text.includes('pay')) return { type: 'tool_calls', toolCalls: [{ name: 'pay', arguments: { amount: 7 } }] };
  if (text.includes('ask')) return { type: 'tool_calls', toolCalls: [{ name: 'ask_user', arguments: { question: 'Which city?' } }] };
  return { type: 'structured_output', output: { answer: 'leaf had nothing to do' } };
}

/** The scripted model of the three agents (see the module comment). */
export function treeTestModel(): LLMAdapter {
  return new MockLLMAdapter((input): MockLLMResponse => {
    if (input.agentType === 'leaf') return leafAnswer(input);
    if (input.agentType === 'middle') return middleAnswer(input);
    return topAnswer(input);
  });
}

import { z } from 'zod';
import { defineAgent, defineTool } from '../src/index.js';
import type { MockLLMResponse } from '../src/llm/mock/mock-llm-response.js';
import type { LLMGenerateInput } from '../src/types/llm.js';

/**
 * Agent type of the human-in-the-loop benchmark agent.
 *
 * @example
 * createHitlAgent().name === HITL_AGENT_NAME; // true
 */
export const HITL_AGENT_NAME = 'bench_hitl_agent';
/**
 * Agent type of the one-step baseline agent (answers at once).
 *
 * @example
 * createAnswerAgent().name === ANSWER_AGENT_NAME; // true
 */
export const ANSWER_AGENT_NAME = 'bench_answer_agent';
/**
 * Tool call id of the client tool call (one per session, so a fixed id suffices).
 *
 * @example
 * await executor.submitToolResult({ kind: 'client-tool-result', sessionId, toolCallId: ASK_TOOL_CALL_ID, result: 'yes' });
 */
export const ASK_TOOL_CALL_ID = 'ask-1';

/**
 * The human-in-the-loop benchmark agent: one client-executed tool; step 1 calls it, the next step answers.
 *
 * @example
 * const handle = await executor.execute(createHitlAgent(), 'Go.', { sessionId: 'hitl-1' });
 */
export function createHitlAgent() {
  const askUser = defineTool({ name: 'ask_user', description: 'Ask the user.', parameters: z.object({}), execute: 'client' });
  return defineAgent({ name: HITL_AGENT_NAME, systemPrompt: 'Ask the user once, then answer.', tools: [askUser], maxSteps: 3 });
}

/**
 * The baseline agent of the resume measurement: no tools, its single step answers with text.
 *
 * @example
 * const handle = await executor.execute(createAnswerAgent(), 'Go.', { sessionId: 'answer-1' });
 */
export function createAnswerAgent() {
  return defineAgent({ name: ANSWER_AGENT_NAME, systemPrompt: 'Answer at once.', tools: [], maxSteps: 1 });
}

/**
 * The scripted answers of the two agents above, `undefined` for any other agent: the HITL agent calls its
 * client tool until the history holds a tool result (so a resumed run answers too), the answer agent answers.
 *
 * @example
 * const llm = new MockLLMAdapter((input) => hitlBenchResponse(input) ?? { type: 'text', text: 'other' });
 */
export function hitlBenchResponse(input: LLMGenerateInput): MockLLMResponse | undefined {
  if (input.agentType === ANSWER_AGENT_NAME) return { type: 'text', text: 'done' };
  if (input.agentType !== HITL_AGENT_NAME) return undefined;
  const answered = input.messages.some((message) => message.role === 'tool');
  return answered ? { type: 'text', text: 'done' } : { type: 'tool_calls', toolCalls: [{ id: ASK_TOOL_CALL_ID, name: 'ask_user', arguments: {} }] };
}

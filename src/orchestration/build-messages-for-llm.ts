import type { AgentConfig } from '../agent/index.js';
import { ConfigurationError } from '../errors/index.js';
import type { Message, SystemMessage } from '../types/message.js';

/**
 * The messages for one LLM call: the system prompt first (a function prompt is evaluated against
 * `customState`), then the conversation. System messages inside `messages` are dropped, so there is exactly
 * one. The input array is not changed.
 *
 * @throws ConfigurationError `INVALID_AGENT_CONFIG` when a function systemPrompt does not return a string.
 * @example
 * const messages = buildMessagesForLLM(agent, history, state.customState);
 * messages[0]; // { role: 'system', content: 'You are …' }
 */
export function buildMessagesForLLM<TState>(
  agent: Pick<AgentConfig<any, any>, 'name' | 'systemPrompt'>,
  messages: readonly Message[],
  customState: TState,
): Message[] {
  const prompt = typeof agent.systemPrompt === 'function' ? (agent.systemPrompt as (state: TState) => unknown)(customState) : agent.systemPrompt;
  if (typeof prompt !== 'string') {
    throw new ConfigurationError('INVALID_AGENT_CONFIG', `Agent "${agent.name}": the systemPrompt function must return a string.`, {
      agentName: agent.name,
    });
  }
  const system: SystemMessage = { role: 'system', content: prompt };
  return [system, ...messages.filter((message) => message.role !== 'system')];
}

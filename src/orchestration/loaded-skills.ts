import type { Message } from '../types/message.js';
import { LOAD_SKILL_TOOL_NAME } from './skill-catalog.js';

/**
 * The names of the skills a conversation has loaded: every `load_skill` call whose result came back without an
 * error, in first-load order, without repeats. A building block for deduplicating loads (the runtime itself
 * returns the body on every call, which is correct and cache-safe).
 *
 * @example
 * collectLoadedSkillNames(history); // ['pdf-processing']
 */
export function collectLoadedSkillNames(messages: readonly Message[]): string[] {
  const requested = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls ?? []) {
      const name = call.arguments.name;
      if (call.name === LOAD_SKILL_TOOL_NAME && typeof name === 'string') requested.set(call.id, name);
    }
  }
  const loaded: string[] = [];
  for (const message of messages) {
    if (message.role !== 'tool' || message.isError === true) continue;
    const name = requested.get(message.toolCallId);
    if (name === undefined || typeof message.content !== 'string' || loaded.includes(name)) continue;
    loaded.push(name);
  }
  return loaded;
}

/**
 * Reserved tool names, prefixes and the provider-safe name pattern shared by every tool builder.
 */

/**
 * Name of the tool auto-injected into agents that declare an `outputSchema`; its arguments are the output.
 *
 * @example
 * if (toolCall.name === FINISH_TOOL_NAME) { /* structured output *\/ }
 */
export const FINISH_TOOL_NAME = '__finish__';

/**
 * Prefix of every sub-agent tool created by `createSubAgentTool` (`subagent__${agent.name}`).
 *
 * @example
 * const agentType = toolName.slice(SUBAGENT_TOOL_PREFIX.length);
 */
export const SUBAGENT_TOOL_PREFIX = 'subagent__';

/**
 * Prefix of the auto-injected companion tools that manage persistent sub-agents.
 *
 * @example
 * const action = toolName.slice(COMPANION_TOOL_PREFIX.length); // 'spawnAgent'
 */
export const COMPANION_TOOL_PREFIX = 'companion__';

/**
 * Names of the skill tools (`load_skill`, `read_skill_file`); user tools may not use them.
 *
 * @example
 * RESERVED_TOOL_NAMES.includes('load_skill'); // true
 */
export const RESERVED_TOOL_NAMES: readonly string[] = Object.freeze([FINISH_TOOL_NAME, 'load_skill', 'read_skill_file']);

/**
 * Pattern every tool name must match so that all providers (OpenAI, Anthropic, Gemini) accept it.
 *
 * @example
 * TOOL_NAME_PATTERN.test('search_web'); // true
 */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * True when `name` matches the provider-safe tool name pattern `^[a-zA-Z0-9_-]{1,64}$`.
 *
 * @example
 * isValidToolName('get weather'); // false (space)
 */
export function isValidToolName(name: unknown): name is string {
  return typeof name === 'string' && TOOL_NAME_PATTERN.test(name);
}

/**
 * Why `name` may not be used for a user-defined tool, or `undefined` when it may.
 *
 * @example
 * reservedToolNameReason('companion__spawnAgent'); // 'names starting with "companion__" are reserved …'
 */
export function reservedToolNameReason(name: string): string | undefined {
  if (RESERVED_TOOL_NAMES.includes(name)) return `"${name}" is a reserved tool name`;
  if (name.startsWith(SUBAGENT_TOOL_PREFIX)) {
    return `names starting with "${SUBAGENT_TOOL_PREFIX}" are reserved for createSubAgentTool`;
  }
  if (name.startsWith(COMPANION_TOOL_PREFIX)) {
    return `names starting with "${COMPANION_TOOL_PREFIX}" are reserved for the auto-injected companion tools`;
  }
  return undefined;
}

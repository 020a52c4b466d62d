import type { SkillMetadata } from '../types/skill.js';

/**
 * Name of the auto-injected tool that returns a skill's instructions.
 *
 * @example
 * if (toolCall.name === LOAD_SKILL_TOOL_NAME) { /* the model loads a skill *\/ }
 */
export const LOAD_SKILL_TOOL_NAME = 'load_skill';

/**
 * Name of the auto-injected tool that reads one of a skill's resource files.
 *
 * @example
 * if (toolCall.name === READ_SKILL_FILE_TOOL_NAME) { /* the model reads a skill file *\/ }
 */
export const READ_SKILL_FILE_TOOL_NAME = 'read_skill_file';

/**
 * Pattern of a skill name: lower-case letters, digits and `-` (no `_`, so it never collides with a tool name).
 *
 * @example
 * SKILL_NAME_PATTERN.test('pdf-processing'); // true
 */
export const SKILL_NAME_PATTERN = /^[a-z0-9-]{1,64}$/;

/** A preloaded skill's body, rendered in the `### Active Skills` block. */
export interface PreloadedSkillBody {
  name: string;
  body: string;
}

/**
 * The `## Skills` section appended to the system prompt: a guardrail, the catalog of every skill sorted by
 * name (code-point order, so the text is byte-stable whatever order the provider lists them in), preloaded
 * skills marked `loaded="true"`, then their bodies under `### Active Skills`. No skills: `''`.
 *
 * The catalog never carries per-session loaded state, so it stays in the cached prompt prefix.
 *
 * @example
 * generateSkillsSystemPromptFragment([{ name: 'deploy', description: 'Deploy runbook' }]);
 * // '## Skills\n\n… A Skill is NOT a tool …\n\n<available_skills>\n<skill name="deploy">Deploy runbook</skill>\n</available_skills>'
 */
export function generateSkillsSystemPromptFragment(
  metadata: readonly SkillMetadata[],
  preloaded: readonly PreloadedSkillBody[] = [],
): string {
  if (metadata.length === 0) return '';
  const loaded = new Set(preloaded.map((skill) => skill.name));
  const lines = [
    '## Skills',
    '',
    `Skills are instructions for specialised tasks. A Skill is NOT a tool — call ${LOAD_SKILL_TOOL_NAME} with the ` +
      `skill's name to read its instructions before you start such a task, and ${READ_SKILL_FILE_TOOL_NAME} to read ` +
      'a file the instructions refer to. Skills marked loaded="true" are already below; do not load them again.',
    '',
    '<available_skills>',
    ...sortByName(metadata).map(
      (skill) => `<skill name="${escapeXml(skill.name)}"${loaded.has(skill.name) ? ' loaded="true"' : ''}>${escapeXml(skill.description)}</skill>`,
    ),
    '</available_skills>',
  ];
  if (preloaded.length > 0) {
    lines.push('', '### Active Skills');
    for (const skill of sortByName(preloaded)) {
      lines.push('', `<skill_instructions name="${escapeXml(skill.name)}">`, skill.body, '</skill_instructions>');
    }
  }
  return lines.join('\n');
}

/**
 * The system prompt with `fragment` appended after a blank line (unchanged when the fragment is empty or there
 * is no leading system message). The input array is not changed.
 *
 * @example
 * const messages = appendToSystemPrompt(buildMessagesForLLM(agent, history, state), catalog);
 */
export function appendToSystemPrompt<TMessage extends { role: string; content: unknown }>(
  messages: readonly TMessage[],
  fragment: string,
): TMessage[] {
  const [first, ...rest] = messages;
  if (fragment === '' || first === undefined || first.role !== 'system' || typeof first.content !== 'string') return [...messages];
  const content = first.content === '' ? fragment : `${first.content}\n\n${fragment}`;
  return [{ ...first, content }, ...rest];
}

function sortByName<T extends { name: string }>(items: readonly T[]): T[] {
  return [...items].sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

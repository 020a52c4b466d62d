import { z } from 'zod';
import type { ServerTool } from '../agent/tool-types.js';
import { LOAD_SKILL_TOOL_NAME, READ_SKILL_FILE_TOOL_NAME } from '../orchestration/skill-catalog.js';
import { lineRangeProblem, normalizeSkillResourcePath } from '../orchestration/skill-resources.js';
import type { SkillProvider } from '../types/skill.js';
import { SkillPathRefusedError } from './skill-path-refused-error.js';

/**
 * Name of the custom stream event `load_skill` emits (`{ name }`), surfaced as `data-skill_loaded` in AI SDK UIs.
 *
 * @example
 * if (chunk.type === 'custom' && chunk.eventName === SKILL_LOADED_EVENT) showBadge(chunk.data.name);
 */
export const SKILL_LOADED_EVENT = 'skill_loaded';

const loadSkillParameters = z.object({
  name: z.string().describe('The skill name from the <available_skills> catalog, e.g. "pdf-processing".'),
});

const PATH_REFUSED = "Refused: the path must be relative and stay inside the skill's directory.";

const readSkillFileParameters = z.object({
  name: z.string().describe('The skill the file belongs to.'),
  path: z.string().describe('The file path relative to the skill, e.g. "references/forms.md".'),
  startLine: z.number().int().min(1).optional().describe('First line to read (1-based). Default: the first line.'),
  endLine: z.number().int().min(1).optional().describe('Last line to read (inclusive). Default: the last line.'),
});

/**
 * The two auto-injected skill tools over a provider: `load_skill` returns a skill's instructions (and lists its
 * files) and emits the `skill_loaded` custom event; `read_skill_file` returns a file's text or a line range of
 * it. They run as ordinary server tools inside the tool step. A mistake by the model (unknown skill or file, a
 * path leaving the skill, a bad range) returns `{ error }` for the model to read instead of failing the call; a
 * path the provider refuses with `SkillPathRefusedError` (a symbolic link out of the skill) gets the same refusal
 * as a `../..` path.
 *
 * @example
 * const [loadSkill, readSkillFile] = createSkillTools(inCodeSkillProvider(definitions));
 */
export function createSkillTools(provider: SkillProvider): readonly [ServerTool, ServerTool] {
  const loadSkill: ServerTool<typeof loadSkillParameters> = {
    kind: 'server' as const,
    name: LOAD_SKILL_TOOL_NAME,
    description: 'Load a skill\'s full instructions by name. Call it before a task a skill in the catalog covers.',
    parameters: loadSkillParameters,
    finishWith: false,
    execute: async ({ name }, context) => {
      const skill = await provider.getSkill(name);
      if (skill === null) return { error: `There is no skill named "${name}". ${await availableSkills(provider)}` };
      context.emit(SKILL_LOADED_EVENT, { name: skill.name });
      if (skill.resources.length === 0) return skill.body;
      return `${skill.body.trimEnd()}\n\nFiles of this skill (read them with ${READ_SKILL_FILE_TOOL_NAME}):\n${skill.resources.map((path) => `- ${path}`).join('\n')}`;
    },
  };
  const readSkillFile: ServerTool<typeof readSkillFileParameters> = {
    kind: 'server' as const,
    name: READ_SKILL_FILE_TOOL_NAME,
    description: 'Read a file of a skill (a reference, script or asset), optionally only the lines startLine..endLine.',
    parameters: readSkillFileParameters,
    finishWith: false,
    execute: async ({ name, path, startLine, endLine }) => {
      if (normalizeSkillResourcePath(path) === null) return { error: PATH_REFUSED };
      const range = { ...(startLine === undefined ? {} : { startLine }), ...(endLine === undefined ? {} : { endLine }) };
      const problem = lineRangeProblem(range);
      if (problem !== undefined) return { error: problem };
      let text: string | null;
      try {
        text = await provider.readResource(name, path, range);
      } catch (error) {
        if (SkillPathRefusedError.isInstance(error)) return { error: PATH_REFUSED };
        throw error;
      }
      if (text === null) return { error: `Skill "${name}" has no file at that path. Call ${LOAD_SKILL_TOOL_NAME} to see its files.` };
      return text;
    },
  };
  return Object.freeze([Object.freeze(loadSkill), Object.freeze(readSkillFile)] as const) as readonly [ServerTool, ServerTool];
}

async function availableSkills(provider: SkillProvider): Promise<string> {
  const names = (await provider.listSkills()).map((skill) => skill.name).sort();
  return names.length === 0 ? 'This agent has no skills.' : `Available skills: ${names.join(', ')}.`;
}

export { inCodeSkillProvider } from './in-code-skill-provider.js';
export { fileSystemSkillProvider, type FileSystemSkillProviderOptions } from './file-system-skill-provider.js';
export { parseSkillFile, type ParsedSkillFile } from './parse-skill-file.js';
export { createSkillTools, SKILL_LOADED_EVENT } from './skill-tools.js';
export { resolveSkillsPromptFragment, toSkillProvider, validatePreloadSkills } from './agent-skills.js';
export { SkillPathRefusedError } from './skill-path-refused-error.js';

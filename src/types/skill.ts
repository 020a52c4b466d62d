/**
 * Skills: plain data behind a small async interface (Level 1 catalog, Level 2 body, Level 3 resources).
 */

/**
 * What the catalog shows of a skill (Level 1): its name and when to use it.
 *
 * @example
 * const entry: SkillMetadata = { name: 'pdf-processing', description: 'Extract text from PDFs. Use for PDF files.' };
 */
export interface SkillMetadata {
  /** `^[a-z0-9-]{1,64}$`: no underscores, so a skill name can never look like a tool name such as `load_skill`. */
  name: string;
  description: string;
}

/**
 * A skill with its full instructions (Level 2) and the relative paths of its resource files (Level 3).
 *
 * @example
 * const skill: Skill = { name: 'deploy', description: 'Deploy runbook', body: '# Deploy\n1. …', resources: ['references/checklist.md'] };
 */
export interface Skill extends SkillMetadata {
  /** Markdown instructions, returned by `load_skill`. */
  body: string;
  /** Relative paths `read_skill_file` can read, sorted. */
  resources: string[];
}

/**
 * An in-code skill (`AgentDefinition.skills` accepts an array of these).
 *
 * @example
 * const skill: SkillDefinition = {
 *   name: 'pdf-processing',
 *   description: 'Extract text and tables from PDFs. Use when working with PDF files.',
 *   body: '# PDF processing\n…',
 *   resources: { 'references/forms.md': '# Forms\n…' },
 * };
 */
export interface SkillDefinition extends SkillMetadata {
  body: string;
  /** Resource files by relative path (`references/…`, `scripts/…`, `assets/…`). */
  resources?: Readonly<Record<string, string>>;
}

/**
 * A 1-based, inclusive line range of a resource file. Either end may be omitted.
 *
 * @example
 * const range: ReadResourceRange = { startLine: 10, endLine: 20 };
 */
export interface ReadResourceRange {
  startLine?: number;
  endLine?: number;
}

/**
 * Where an agent's skills come from. Called inside durable steps only (the catalog inside the LLM step, bodies
 * and files inside the tool step), so a provider may do I/O.
 *
 * @example
 * const provider: SkillProvider = inCodeSkillProvider([{ name: 'greet', description: 'Greeting etiquette', body: 'Say hello.' }]);
 * const catalog = await provider.listSkills();
 */
export interface SkillProvider {
  /** Level 1: every skill's name and description. */
  listSkills(): Promise<SkillMetadata[]>;
  /** Level 2: one skill, or null when there is none of that name. */
  getSkill(name: string): Promise<Skill | null>;
  /**
   * Level 3: a resource file's text (the whole file, or the lines of `range`), or null when the skill or file
   * does not exist. Paths are relative to the skill; a path that escapes it by name (`../x`, an absolute path)
   * resolves to null, and one that escapes it through a symbolic link is refused with `SkillPathRefusedError`
   * (`INVALID_ARGUMENT`): both reach the model as a refusal, never as the file's text.
   */
  readResource(name: string, path: string, range?: ReadResourceRange): Promise<string | null>;
}

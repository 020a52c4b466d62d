import { InvalidArgumentError } from '../errors/index.js';
import { hasCode } from '../errors/helix-error.js';

/**
 * Thrown by `fileSystemSkillProvider().readResource` when a path is lexically inside the skill but its real
 * location (after symbolic links) is not: a link to `/etc/passwd`, to a sibling skill, or a linked folder outside.
 * `read_skill_file` turns it into the same refusal the model gets for a `../..` path. `data` names the skill only,
 * never the path.
 *
 * @example
 * try { await provider.readResource('pdf-processing', 'references/forms.md'); }
 * catch (error) { if (SkillPathRefusedError.isInstance(error)) console.log(error.code); } // INVALID_ARGUMENT
 */
export class SkillPathRefusedError extends InvalidArgumentError {
  constructor(readonly skill: string) {
    super(
      `A file of skill "${skill}" resolves (through a symbolic link) outside the skill's directory; point the link inside the skill or copy the file into it.`,
      { skill },
    );
    this.name = 'SkillPathRefusedError';
  }
  static override isInstance(error: unknown): error is SkillPathRefusedError {
    return hasCode(error, 'INVALID_ARGUMENT') && (error as { name?: unknown }).name === 'SkillPathRefusedError';
  }
}

import type { Logger } from '../hooks/types.js';

/** Per logger: skill directory (absolute) → the reason last warned about. */
const warnedSkips = new WeakMap<Logger, Map<string, string>>();

/**
 * Warn `skills.skipped` for a skill directory once per logger, directory and reason in this process: a provider
 * reads its directories at every step, and re-created providers share the record, so one run with a broken skill
 * logs one warning. A new reason warns again, and so does a directory that breaks again after `forgetSkippedSkill`.
 *
 * @example
 * warnSkippedSkillOnce(logger, '/srv/skills/broken', { directory: 'broken', reason: 'SKILL.md must start with YAML frontmatter between "---" lines.' });
 */
export function warnSkippedSkillOnce(logger: Logger | undefined, directoryPath: string, fields: { directory: string; reason: string }): void {
  if (logger === undefined) return;
  let warned = warnedSkips.get(logger);
  if (warned === undefined) {
    warned = new Map();
    warnedSkips.set(logger, warned);
  }
  if (warned.get(directoryPath) === fields.reason) return;
  warned.set(directoryPath, fields.reason);
  logger.warn('skills.skipped', fields);
}

/**
 * Forget a directory's last warning (it loaded fine), so breaking it again warns again.
 *
 * @example
 * forgetSkippedSkill(logger, '/srv/skills/broken');
 */
export function forgetSkippedSkill(logger: Logger | undefined, directoryPath: string): void {
  if (logger !== undefined) warnedSkips.get(logger)?.delete(directoryPath);
}

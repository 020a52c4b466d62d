import type { ReadResourceRange } from '../types/skill.js';

/**
 * A resource path made canonical, or null when it would leave the skill's directory. The guard is lexical:
 * `\` counts as `/`, `.` and empty segments are dropped, `..` pops a segment; an absolute path, a drive
 * letter, a NUL byte or a `..` past the top is refused. Symbolic links are not followed.
 *
 * @example
 * normalizeSkillResourcePath('references/./a/../b.md'); // 'references/b.md'
 * normalizeSkillResourcePath('../secrets.txt');         // null
 */
export function normalizeSkillResourcePath(path: string): string | null {
  if (typeof path !== 'string' || path === '' || path.includes('\0')) return null;
  const slashed = path.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[a-zA-Z]:/.test(slashed)) return null;
  const segments: string[] = [];
  for (const segment of slashed.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) return null;
      segments.pop();
      continue;
    }
    segments.push(segment);
  }
  return segments.length === 0 ? null : segments.join('/');
}

/**
 * Why a line range is unusable (ends must be integers ≥ 1, start ≤ end), or undefined when it is fine.
 *
 * @example
 * lineRangeProblem({ startLine: 5, endLine: 2 }); // 'startLine must not be greater than endLine.'
 */
export function lineRangeProblem(range: ReadResourceRange | undefined): string | undefined {
  if (range === undefined) return undefined;
  for (const key of ['startLine', 'endLine'] as const) {
    const value = range[key];
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) return `${key} must be an integer of at least 1.`;
  }
  if (range.startLine !== undefined && range.endLine !== undefined && range.startLine > range.endLine) {
    return 'startLine must not be greater than endLine.';
  }
  return undefined;
}

/**
 * The lines `startLine..endLine` (1-based, inclusive) of `text`; an omitted end means the first or last line,
 * an end past the file is clamped, a start past the file gives `''`. Line breaks `\n` and `\r\n` are kept.
 *
 * @throws RangeError for a range `lineRangeProblem` rejects.
 * @example
 * sliceLines('a\nb\nc\n', { startLine: 2, endLine: 3 }); // 'b\nc\n'
 */
export function sliceLines(text: string, range: ReadResourceRange | undefined): string {
  const problem = lineRangeProblem(range);
  if (problem !== undefined) throw new RangeError(problem);
  if (range === undefined || (range.startLine === undefined && range.endLine === undefined)) return text;
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const start = (range.startLine ?? 1) - 1;
  const end = range.endLine ?? lines.length;
  return lines.slice(start, end).join('');
}

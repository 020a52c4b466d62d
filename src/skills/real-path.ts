import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';

/**
 * Where a path really is, seen from a directory: `inside` with its real path (symbolic links resolved), `outside`
 * when its real path leaves the directory (or is the directory itself), `missing` when it does not resolve
 * (absent, a dangling link, a link loop).
 *
 * @example
 * const where: RealLocation = { kind: 'inside', path: '/srv/skills/pdf/references/forms.md' };
 */
export type RealLocation = { kind: 'inside'; path: string } | { kind: 'outside' } | { kind: 'missing' };

/**
 * Resolve `path` with `fs.realpath` and place it against `realRoot`, which must itself be a real path
 * (resolve it with `fs.realpath` first: a skills directory may be reached through a link).
 *
 * @example
 * await locateInside('/srv/skills/pdf', '/srv/skills/pdf/references/passwd.md'); // { kind: 'outside' } for a link to /etc/passwd
 */
export async function locateInside(realRoot: string, path: string): Promise<RealLocation> {
  const real = await realpath(path).catch(() => undefined);
  if (real === undefined) return { kind: 'missing' };
  return isStrictlyInside(realRoot, real) ? { kind: 'inside', path: real } : { kind: 'outside' };
}

/**
 * True when `path` lies below `directory` (both absolute and of the same kind, lexical or real), not equal to it.
 *
 * @example
 * isStrictlyInside('/srv/skills/pdf', '/srv/skills/pdf/a.md'); // true
 * isStrictlyInside('/srv/skills/pdf', '/srv/skills/zip/a.md'); // false
 */
export function isStrictlyInside(directory: string, path: string): boolean {
  const inside = relative(directory, path);
  return inside !== '' && inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside);
}

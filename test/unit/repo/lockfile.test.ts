import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  optionalDependencies?: Record<string, string>;
}

/** Package paths a dependency of `from` may resolve to, nearest first (node_modules lookup). */
function candidates(from: string, name: string): string[] {
  const parts = from.split('/node_modules/');
  const out: string[] = [];
  for (let depth = parts.length; depth >= 1; depth -= 1) {
    out.push(`${parts.slice(0, depth).join('/node_modules/')}/node_modules/${name}`);
  }
  out.push(`node_modules/${name}`);
  return out;
}

describe('package-lock.json', () => {
  it('lists every optional dependency, so `npm ci` accepts it on any platform', () => {
    const lock = JSON.parse(readFileSync(new URL('../../../package-lock.json', import.meta.url), 'utf8')) as {
      packages: Record<string, LockEntry>;
    };
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (!candidates(path, name).some((candidate) => candidate in lock.packages)) missing.push(`${path} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

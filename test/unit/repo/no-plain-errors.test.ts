import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every error src/ throws is typed: a HelixError subclass (or HelixError with a code), so callers and the runtime
 * match it on `code` (also after DBOS revived it as a plain Error) and its message is written payload-free.
 *
 * Excluded: src/testing/contracts/ — the contract suites run inside the user's test runner, never in the runtime;
 * their guards ("the store factory has not run") fail a test like `expect` does, are never stored, streamed,
 * served or replayed by DBOS, so a code would tell nobody anything.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const EXCLUDED = ['src/testing/contracts/'];
const PLAIN_THROW = /\bthrow\s+(?:new\s+)?Error\s*\(/g;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `file:line` of every plain `throw new Error(` (or `throw Error(`) in `text`. */
function plainThrows(file: string, text: string): string[] {
  return [...text.matchAll(PLAIN_THROW)].map((match) => `${file}:${text.slice(0, match.index).split('\n').length}`);
}

describe('no plain errors in src/', () => {
  it('throws only typed errors (HelixError and its subclasses)', () => {
    const files = sourceFiles(join(root, 'src')).map((path) => relative(root, path).split('\\').join('/'));
    expect(files.length).toBeGreaterThan(100);
    const found = files
      .filter((file) => !EXCLUDED.some((folder) => file.startsWith(folder)))
      .flatMap((file) => plainThrows(file, readFileSync(join(root, file), 'utf8')));
    expect(found).toEqual([]);
  });

  it.each([
    ["throw new Error('x');", 1],
    ['if (a) throw Error(`x`);', 1],
    ["throw new HelixError('INTERNAL_ERROR', 'x');", 0],
    ["reject(new Error('x'));", 0],
    ["throw new ErrorLike('x');", 0],
  ])('the pattern flags %s %i time(s)', (line, count) => {
    expect(plainThrows('f.ts', line)).toHaveLength(count);
  });
});

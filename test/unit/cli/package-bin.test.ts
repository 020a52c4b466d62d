import { existsSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { bin?: Record<string, string>; files?: string[]; dependencies?: Record<string, string> };

describe('the helix-agents executable', () => {
  it('is declared, shipped, executable, and imports the entry tsc -p tsconfig.build.json emits', () => {
    expect(manifest.bin).toEqual({ 'helix-agents': './bin/helix-agents.js' });
    expect(manifest.files).toContain('bin');
    expect(manifest.dependencies?.commander).toBeDefined();
    const bin = new URL('bin/helix-agents.js', root);
    expect(statSync(bin).mode & 0o111).not.toBe(0);
    const text = readFileSync(bin, 'utf8');
    expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(text).toContain("import '../dist/cli/main.js';");
    // rootDir src → outDir dist: src/cli/main.ts is emitted as dist/cli/main.js.
    const build = JSON.parse(readFileSync(new URL('tsconfig.build.json', root), 'utf8')) as { compilerOptions: { rootDir: string; outDir: string }; include: string[] };
    expect(build.compilerOptions).toMatchObject({ rootDir: 'src', outDir: 'dist' });
    expect(build.include).toContain('src');
    expect(existsSync(new URL('src/cli/main.ts', root))).toBe(true);
  });
});

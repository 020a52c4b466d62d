/**
 * A DBOS release without the internals the fused journal uses still loads the whole package, which then records
 * steps on the public journal (the fused journal is loaded by a dynamic import that may fail). Proven in a child
 * process whose module hooks make every `@dbos-inc/dbos-sdk/internal/*` import fail; the control run without the
 * hooks picks the fused journal, so the check can fail.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const fixtures = fileURLToPath(new URL('../../fixtures/no-dbos-internals/', import.meta.url));

async function loadPackage(hideInternals: boolean): Promise<{ exports: number; active: string; fusedAsked: string }> {
  const hooks = hideInternals ? ['--import', `${fixtures}hide-internals.mjs`] : [];
  const environment = { ...process.env };
  delete environment.HELIX_JOURNAL;
  delete environment.NODE_OPTIONS;
  const { stdout } = await run(process.execPath, [...hooks, '--import', 'tsx', `${fixtures}load-package.ts`], { env: environment });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { exports: number; active: string; fusedAsked: string };
}

describe('the package without DBOS internals', () => {
  it('loads and runs the public journal, even when the fused one is asked for', async () => {
    const loaded = await loadPackage(true);
    expect(loaded.exports).toBeGreaterThan(50);
    expect(loaded).toMatchObject({ active: 'public', fusedAsked: 'public' });
  }, 60_000);

  it('with them (control): the fused journal', async () => {
    expect(await loadPackage(false)).toMatchObject({ active: 'fused', fusedAsked: 'fused' });
  }, 60_000);
});

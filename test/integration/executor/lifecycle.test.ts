import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

const script = fileURLToPath(new URL('../../fixtures/lifecycle/exit-after-close.ts', import.meta.url));
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('lifecycle');
});
afterAll(async () => {
  await database?.drop();
});

describe('executor lifecycle', () => {
  it('after DBOS.shutdown(), executor.close() and the stores, the process exits by itself, quietly', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...(process.env.HELIX_TRACE_DEPRECATION === '1' ? ['--trace-deprecation'] : []), script], { env: { ...process.env, HELIX_LIFECYCLE_DB: database.url }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    const started = Date.now();
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(null);
      }, 30_000);
      child.on('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    expect(stdout).toContain('"status":"completed"');
    expect(stdout).toContain('closed');
    expect(code).toBe(0); // null: still running 30 s later, something kept the event loop alive
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(stderr).not.toMatch(/DeprecationWarning|Error|at .+:\d+:\d+/);
  }, 40_000);
});

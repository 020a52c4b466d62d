/**
 * `npm run bench` end to end, as a smoke test: it runs in a child process on the test Postgres (it creates
 * and drops its own database there) and prints its table. No timing is asserted.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

async function benchDatabases(adminUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return (await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'helix_bench_%'")).rows.map((row) => row.datname);
  } finally {
    await client.end();
  }
}

describe('npm run bench (bench/index.ts)', () => {
  it('prints per-step costs, the bare-DBOS ratio and the step 1 vs step 200 ratio, then drops its database', async () => {
    const adminUrl = inject('postgresUrl');
    const before = await benchDatabases(adminUrl);
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/index.ts'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: adminUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (piece: string) => (output += piece));
    child.stderr.setEncoding('utf8').on('data', (piece: string) => (output += piece));
    const code = await new Promise<number | null>((done) => child.on('exit', (exitCode) => done(exitCode)));
    expect(code, output).toBe(0);
    const value = (label: string): number => {
      const match = new RegExp(`^${label}.*?\\s+(\\d+(?:\\.\\d+)?)x?$`, 'm').exec(output);
      expect(match, `row "${label}" in:\n${output}`).not.toBeNull();
      return Number(match?.[1]);
    };
    for (const label of ['agent step, our loop', 'bare DBOS step', 'ratio agent step / bare DBOS step', 'session steps 1-10', 'session steps 191-200', 'ratio steps 191-200 / steps 1-10']) {
      expect(value(label)).toBeGreaterThan(0);
    }
    const recomputed = value('agent step, our loop') / value('bare DBOS step');
    expect(Math.abs(value('ratio agent step / bare DBOS step') - recomputed) / recomputed).toBeLessThan(0.02); // printed values are rounded
    expect(await benchDatabases(adminUrl)).toEqual(before);
  }, 180_000);
});

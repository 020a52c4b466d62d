import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { BenchDatabase } from '../bench-database.js';
import type { SystemName } from './bench-system.js';
import { parseSystemReportLine, type SystemReport } from './system-report.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CHILD_SCRIPT = 'bench/side-by-side/system-child.ts';

/**
 * Measure one system in its own child process on a fresh database of the benchmark's server (dropped
 * afterwards), so its `pg_stat_database` counts and table sizes are its own.
 *
 * @throws Error when the child fails (e.g. a session ran the wrong number of tool calls) or prints no
 *   report; its stderr tail is in the message.
 * @example
 * const langgraph = await measureSystem(database, 'langgraph');
 */
export async function measureSystem(database: BenchDatabase, system: SystemName): Promise<SystemReport> {
  const sibling = await database.createSibling();
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD_SCRIPT, system], {
      cwd: ROOT,
      env: { ...process.env, BENCH_DATABASE_URL: sibling.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (piece: string) => (stdout += piece));
    child.stderr.setEncoding('utf8').on('data', (piece: string) => (stderr += piece));
    const code = await new Promise<number | null>((done, fail) => {
      child.on('error', fail);
      child.on('exit', (exitCode) => done(exitCode));
    });
    const report = parseSystemReportLine(stdout);
    if (code !== 0 || report === undefined) throw new Error(`The "${system}" benchmark child exited ${code}:\n${stderr.slice(-2_000)}`);
    return report;
  } finally {
    await sibling.drop();
  }
}

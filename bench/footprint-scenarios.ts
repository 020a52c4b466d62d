import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { BenchDatabase } from './bench-database.js';
import { parseFootprintLine, type FootprintReport, type FootprintScenario } from './footprint-report.js';

const ROOT = resolve(import.meta.dirname, '..');
const CHILD_SCRIPT = 'bench/waiting-sessions.ts';

/**
 * Run one footprint scenario in its own child process on a fresh database of the benchmark's server (the
 * database is dropped afterwards) and return what the child measured.
 *
 * @throws Error when the child fails or prints no report (its stderr tail is in the message).
 * @example
 * const warm = await measureFootprint(database, 'warm');
 */
export async function measureFootprint(database: BenchDatabase, scenario: FootprintScenario): Promise<FootprintReport> {
  const sibling = await database.createSibling();
  try {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD_SCRIPT, scenario], {
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
    const report = parseFootprintLine(stdout);
    if (code !== 0 || report === undefined) throw new Error(`The "${scenario}" footprint child exited ${code}:\n${stderr.slice(-2_000)}`);
    return report;
  } finally {
    await sibling.drop();
  }
}

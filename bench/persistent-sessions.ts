/**
 * The persistent-session figures of `npm run bench` (`HELIX_BENCH_ONLY=persistent` runs only these): message →
 * reply latency of a persistent session waiting warm and of one that parked (next to a fresh standard run), and
 * (`HELIX_BENCH_PERSISTENT=latency`: only these) the idle cost of N idle persistent sessions waiting warm (the reference's receive loop) or parked, next to N
 * parked standard sessions and a 0-session baseline. Every scenario runs in its own child process and database.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { formatTable } from '../examples/demo/format-table.js';
import type { BenchDatabase } from './bench-database.js';
import { hitlBenchScale } from './bench-scale.js';
import { parseFootprintLine, type FootprintReport } from './footprint-report.js';
import { measureFootprint } from './footprint-scenarios.js';
import type { LatencySummary } from './latency-summary.js';

const ROOT = resolve(import.meta.dirname, '..');
const CHILD_SCRIPT = 'bench/persistent-child.ts';
const LATENCY_LINE_PREFIX = 'PERSISTENT_LATENCY ';

/** Latencies the child measured. */
interface PersistentLatencies {
  warm: LatencySummary;
  parked: LatencySummary;
  fresh: LatencySummary;
}

/**
 * Run the persistent-session measurements and print their tables.
 *
 * @example
 * await measurePersistentSessions(database);
 */
export async function measurePersistentSessions(database: BenchDatabase): Promise<void> {
  const { latencySamples, footprintSessions, quietWindowMs } = hitlBenchScale();
  process.stdout.write(`\nPersistent sessions: message → reply over ${latencySamples} sessions each (one-step answers; 200 ms warm window for the parked ones)…\n\n`);
  const latency = parseLatency(await runChild(database, 'latency'));
  const ms = (summary: LatencySummary): string[] => [summary.p50.toFixed(1), summary.p95.toFixed(1)];
  process.stdout.write(
    `${formatTable(
      ['message → reply (execute() to result())', 'p50 ms', 'p95 ms'],
      [
        ['persistent session waiting warm (message into its inbox)', ...ms(latency.warm)],
        ['persistent session that parked (restarted from the store)', ...ms(latency.parked)],
        ['fresh standard run of a new session (reference)', ...ms(latency.fresh)],
      ],
    )}\n`,
  );

  if (process.env.HELIX_BENCH_PERSISTENT === 'latency') return;
  process.stdout.write(`\nIdle cost of ${footprintSessions} idle sessions (each ran one turn), ${quietWindowMs / 1000} s quiet window, each scenario in its own child process…\n\n`);
  const [none, warm] = await Promise.all([measureFootprint(database, 'none'), runFootprint(database, 'persistent-warm')]);
  const parkedStandard = await measureFootprint(database, 'parked');
  const parkedPersistent = await runFootprint(database, 'persistent-parked');
  const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
  const row = (label: string, report: FootprintReport): string[] => [
    label,
    String(report.sessions),
    mb(report.rssBytes),
    `${mb(report.rssBytes - none.rssBytes)}`,
    mb(report.heapUsedBytes),
    report.transactionsPerSecond.toFixed(1),
    String(report.pendingWorkflows),
  ];
  process.stdout.write(
    `${formatTable(
      ['scenario', 'sessions', 'RSS MB', 'RSS growth MB', 'heap MB', 'Postgres xact/s', 'pending workflows'],
      [
        row('baseline: no sessions', none),
        row('persistent, waiting warm (reference receive loop)', warm),
        row('persistent, parked (ours after the warm window)', parkedPersistent),
        row('standard, parked waiting for a human', parkedStandard),
      ],
    )}\n`,
  );
}

async function runFootprint(database: BenchDatabase, scenario: 'persistent-warm' | 'persistent-parked'): Promise<FootprintReport> {
  const report = parseFootprintLine(await runChild(database, scenario));
  if (report === undefined) throw new Error(`The "${scenario}" child printed no report.`);
  return report;
}

function parseLatency(output: string): PersistentLatencies {
  const line = output.split('\n').find((candidate) => candidate.startsWith(LATENCY_LINE_PREFIX));
  if (line === undefined) throw new Error('The latency child printed no report.');
  return JSON.parse(line.slice(LATENCY_LINE_PREFIX.length)) as PersistentLatencies;
}

/** Run the child with `scenario` on a fresh sibling database (dropped afterwards); its stdout. */
async function runChild(database: BenchDatabase, scenario: string): Promise<string> {
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
    if (code !== 0) throw new Error(`The persistent "${scenario}" child exited ${code}:\n${stderr.slice(-2_000)}`);
    return stdout;
  } finally {
    await sibling.drop();
  }
}

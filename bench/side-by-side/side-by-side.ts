import pg from 'pg';
import type { BenchDatabase, SiblingDatabase } from '../bench-database.js';
import type { ChildReply } from './child-protocol.js';
import { SYSTEM_NAMES, type SystemName } from './bench-system.js';
import { sideBySideScale } from './side-by-side-scale.js';
import { formatFiguresTable, formatRatiosTable, formatRelationsTable, type Comparison } from './side-by-side-tables.js';
import { formatJournalTargetsTable, formatOtherTargetsTable, journalTargets } from './side-by-side-targets.js';
import { summarizeSystem, type SystemFigures } from './system-figures.js';
import { SystemProcess } from './system-process.js';
import type { SystemReport } from './system-report.js';

/** How long a child may take to shut its system down after its report. */
const CHILD_EXIT_GRACE_MS = 15_000;

/** Pause after the CHECKPOINT before each session. */
const QUIET_PAUSE_MS = 1_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The side-by-side comparison: ours on each step journal (fused and public), LangGraph.js + PostgresSaver
 * (durability "sync") and a naive DBOS loop, plus ours (fused) with a custom state that gains 1 KB per step,
 * each in its own child process and database on the benchmark's server. Sessions run one at a time,
 * interleaved in rounds, so a change of the machine's load over the run weighs on every system alike. Prints
 * the figures, the disk growth by relation, each journal's ratios to each peer, the step-journal targets and
 * issue 11's other targets with PASS/MISS (a MISS does not fail the run); resolves with the comparison.
 *
 * @throws Error when a system fails or ran other than one tool call per step.
 * @example
 * const comparison = await measureSideBySide(database);
 */
export async function measureSideBySide(database: BenchDatabase): Promise<Comparison> {
  const { steps, sessions, window, settleMs, idleWindowMs } = sideBySideScale();
  process.stdout.write(
    `Side by side (issue 11; both step journals): ${SYSTEM_NAMES.length} systems, each in its own child process and database, warmed up by one session; then ${sessions} rounds of one measured ${steps}-step session per system, one session at a time on the server (the order rotates each round; a CHECKPOINT and a 1 s pause before each); ${settleMs / 1000} s settle before each pg_stat_database read, ${idleWindowMs / 1000} s idle window…\n`,
  );
  const reports = await runRounds(database, sessions, settleMs);
  const systems = Object.fromEntries(reports.map((report) => [report.system, summarizeSystem(report)])) as Record<SystemName, SystemFigures>;
  const comparison: Comparison = { steps, window, sessions, systems };
  process.stdout.write(
    `\n${formatFiguresTable(comparison)}\n\n${formatRelationsTable(comparison)}\n\n${formatRatiosTable(comparison)}\n\n${formatJournalTargetsTable(comparison)}\n\n${formatOtherTargetsTable(comparison)}\n`,
  );
  const targets = journalTargets(comparison);
  const missed = targets.filter((target) => !target.pass).map((target) => target.label);
  process.stdout.write(`\nStep-journal targets: ${targets.length - missed.length} of ${targets.length} PASS${missed.length === 0 ? '' : `; MISS: ${missed.join('; ')}`}.\n`);
  process.stdout.write(
    [
      '',
      'Every system: one no-op tool call per step from a scripted model costing ~0 ms, then a text answer; every session is checked to have run exactly one tool call per step.',
      'ms/step: start of model call n to start of call n + 1 (size snapshots excluded), median of the sessions.',
      "Ours: the same agent, stores and DBOS set-up on either step journal (fused: a step's dbos.operation_outputs row and its effects in one transaction; public: DBOS.runStep, the stores writing on their own), chosen per child by HELIX_JOURNAL and the executor's journal option; every LLM and tool step writes its own DBOS row on both.",
      "disk: growth of sum(pg_total_relation_size) of the user tables (heap, indexes, TOAST; 8 KiB pages) over a session; a system on DBOS has DBOS's system tables (dbos.operation_outputs: a row per step; dbos.workflow_status) in its database, so they count. Row bytes: sum(pg_column_size(row)) over every user table, snapshotted at the window edges.",
      "Write transactions: transaction ids assigned during a session (pg_snapshot_xmax(pg_current_snapshot()) before and after; only writing transactions get one, server-wide, nothing else writes meanwhile). Transactions: Δ sum(xact_commit + xact_rollback) of the system's database over all its sessions, read after a settle, minus the probe's own queries and the idle rate × elapsed time.",
      '',
    ].join('\n'),
  );
  return comparison;
}

/** Start every system, run the measured rounds, collect the reports; every child is stopped and its database dropped. */
async function runRounds(database: BenchDatabase, sessions: number, settleMs: number): Promise<SystemReport[]> {
  const siblings = await Promise.all(SYSTEM_NAMES.map(() => database.createSibling()));
  const processes: SystemProcess[] = [];
  let failed = true;
  try {
    // Set-up and warm-up are not measured: all children start at once.
    const started = await Promise.allSettled(SYSTEM_NAMES.map((system, index) => SystemProcess.start(siblings[index] as SiblingDatabase, system)));
    for (const result of started) if (result.status === 'fulfilled') processes.push(result.value);
    for (const result of started) if (result.status === 'rejected') throw result.reason;
    await sleep(settleMs);
    for (const child of processes) expectReply(await child.request({ type: 'count-start' }), 'counted', child.system);
    for (let round = 1; round <= sessions; round += 1) {
      for (let turn = 0; turn < processes.length; turn += 1) {
        const child = processes[(round - 1 + turn) % processes.length] as SystemProcess;
        await quietStart(database);
        expectReply(await child.request({ type: 'session', index: round }), 'session', child.system);
      }
      process.stdout.write(`  round ${round} of ${sessions} done\n`);
    }
    await sleep(settleMs);
    const replies = await Promise.all(processes.map((child) => child.request({ type: 'finish' })));
    const reports = replies.map((reply, index) => expectReply(reply, 'report', SYSTEM_NAMES[index] as SystemName).report);
    failed = false;
    return reports;
  } finally {
    await Promise.all(processes.map((child) => child.stop(failed ? 0 : CHILD_EXIT_GRACE_MS)));
    await Promise.allSettled(siblings.map((sibling) => sibling.drop()));
  }
}

/**
 * Before each session: write the previous sessions' dirty pages out (CHECKPOINT, on the benchmark's own
 * database: no system's counts move) and pause, so a session does not pay for the one before it.
 */
async function quietStart(database: BenchDatabase): Promise<void> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
  await sleep(QUIET_PAUSE_MS);
}

function expectReply<T extends ChildReply['type']>(reply: ChildReply, type: T, system: SystemName): Extract<ChildReply, { type: T }> {
  if (reply.type !== type) throw new Error(`The "${system}" benchmark child answered ${reply.type} instead of ${type}.`);
  return reply as Extract<ChildReply, { type: T }>;
}

/**
 * Child process of `npm run bench`: `node --import tsx bench/side-by-side/system-child.ts <system>` with
 * `BENCH_DATABASE_URL` set to a fresh database of its own. Sets the system up, runs an unmeasured warm-up
 * session and says it is ready; then, on the parent's commands (child-protocol.ts), reads the transaction
 * count, runs measured sessions (each checked to have run exactly one tool call per step) and finally
 * reports. The parent runs one session at a time on the whole server: write transactions are counted by
 * the server-wide transaction id (idle systems do not write). With `HELIX_BENCH_DIAGNOSTICS=<dir>` it also
 * traces every statement of the measured sessions and writes `<dir>/<system>.txt`: statements per agent step
 * with their times, and where DBOS's step rows' bytes go.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { BenchSystem, SystemName } from './bench-system.js';
import { journalOf, SYSTEM_NAMES } from './bench-system.js';
import { openDatabaseProbe, type DatabaseProbe, type RelationSizes } from './database-probe.js';
import { openHelixSystem } from './helix-system.js';
import { openLangGraphSystem } from './langgraph-system.js';
import { openNaiveDbosSystem } from './naive-dbos-system.js';
import { sideBySideScale, type SideBySideScale } from './side-by-side-scale.js';
import { StepClock } from './step-clock.js';
import type { SessionFigures } from './system-report.js';
import { formatProtocolLine, parseProtocolLine, type ChildCommand, type ChildReply } from './child-protocol.js';
import { formatDbosRowBytes } from './dbos-row-bytes.js';
import { installStatementTrace, type StatementTrace } from './statement-trace.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function openSystem(system: SystemName, databaseUrl: string): Promise<BenchSystem> {
  switch (system) {
    case 'helix':
    case 'helix-public-journal':
      return openHelixSystem(databaseUrl, { growingState: false, journal: journalOf(system) ?? 'fused' });
    case 'helix-growing-state':
      return openHelixSystem(databaseUrl, { growingState: true, journal: journalOf(system) ?? 'fused' });
    case 'langgraph':
      return openLangGraphSystem(databaseUrl);
    case 'naive-dbos':
      return openNaiveDbosSystem(databaseUrl);
  }
}

/** Run one session and fail loudly unless it ran one tool call per step and one model call more. */
async function checkedSession(system: BenchSystem, sessionId: string, steps: number, clock: StepClock): Promise<number> {
  const toolCalls = await system.runSession(sessionId, steps, clock);
  if (toolCalls !== steps || clock.calls !== steps + 1) {
    throw new Error(`Session ${sessionId} ran ${toolCalls} tool calls and ${clock.calls} model calls; expected ${steps} and ${steps + 1}.`);
  }
  return toolCalls;
}

async function measureSession(system: BenchSystem, probe: DatabaseProbe, sessionId: string, scale: SideBySideScale, trace?: StatementTrace): Promise<SessionFigures> {
  const { steps, window } = scale;
  const lateFirst = steps - window + 1;
  const snapshotCalls = [1, window + 1, lateFirst, steps + 1];
  const clock = new StepClock(new Map(snapshotCalls.map((call) => [call, () => probe.rowBytes()])));
  const diskBefore = await probe.diskBytes();
  const relationsBefore = await probe.diskBytesByRelation();
  const transactionIdBefore = await probe.nextTransactionId();
  const startedAt = performance.now();
  trace?.setTracing(true);
  const toolCalls = await checkedSession(system, sessionId, steps, clock).finally(() => trace?.setTracing(false));
  const wallMs = performance.now() - startedAt;
  const writeTransactions = (await probe.nextTransactionId()) - transactionIdBefore;
  const relationsAfter = await probe.diskBytesByRelation();
  return {
    earlyMs: clock.meanStepMs(1, window),
    lateMs: clock.meanStepMs(lateFirst, steps),
    meanMs: clock.meanStepMs(1, steps),
    diskBytes: (await probe.diskBytes()) - diskBefore,
    diskBytesByRelation: relationGrowth(relationsBefore, relationsAfter),
    rowBytesEarly: clock.snapshot(window + 1) - clock.snapshot(1),
    rowBytesLate: clock.snapshot(steps + 1) - clock.snapshot(lateFirst),
    writeTransactions,
    toolCalls,
    wallMs,
  };
}

/** Per table, what `after` holds beyond `before` (tables that did not grow left out). */
function relationGrowth(before: RelationSizes, after: RelationSizes): RelationSizes {
  const growth: RelationSizes = {};
  for (const [name, sizes] of Object.entries(after)) {
    const table = sizes.table - (before[name]?.table ?? 0);
    const indexes = sizes.indexes - (before[name]?.indexes ?? 0);
    if (table !== 0 || indexes !== 0) growth[name] = { table, indexes };
  }
  return growth;
}

/** The statement trace over `steps` measured agent steps and DBOS's row bytes, into `path`. */
async function writeDiagnostics(path: string, system: SystemName, databaseUrl: string, trace: StatementTrace, steps: number): Promise<void> {
  const heading = `${system}: statements per agent step over ${steps} measured steps (whole sessions, the final answer included)`;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${heading}\n\n${trace.format(steps)}\n\n${await formatDbosRowBytes(databaseUrl)}`);
}

async function main(): Promise<void> {
  const system = process.argv[2] as SystemName;
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  if (!SYSTEM_NAMES.includes(system) || databaseUrl === undefined) {
    throw new Error(`Usage: BENCH_DATABASE_URL=… node --import tsx bench/side-by-side/system-child.ts <${SYSTEM_NAMES.join('|')}>`);
  }
  const scale = sideBySideScale();
  const diagnostics = process.env.HELIX_BENCH_DIAGNOSTICS;
  const trace = diagnostics === undefined || diagnostics === '' ? undefined : installStatementTrace();
  const probe = await openDatabaseProbe(databaseUrl);
  const subject = await openSystem(system, databaseUrl);
  const reply = (message: ChildReply): void => void process.stdout.write(formatProtocolLine(message));
  try {
    await checkedSession(subject, `${system}-warm-up`, scale.warmUpSteps, new StepClock());
    reply({ type: 'ready' });
    const sessions: SessionFigures[] = [];
    let count = { queries: 0, transactions: 0, at: 0 };
    for await (const line of createInterface({ input: process.stdin })) {
      const command = parseProtocolLine<ChildCommand>(line);
      if (command?.type === 'count-start') {
        count = { queries: probe.queries, transactions: await probe.transactionCount(), at: performance.now() };
        reply({ type: 'counted' });
      } else if (command?.type === 'session') {
        const figures = await measureSession(subject, probe, `${system}-${command.index}`, scale, trace);
        sessions.push(figures);
        reply({ type: 'session', figures });
      } else if (command?.type === 'finish') {
        const ownQueries = probe.queries - count.queries;
        const transactionsAfter = await probe.transactionCount();
        const transactionSeconds = (performance.now() - count.at) / 1000;
        // The idle rate over the next window (the lag of the idle pollers' own counts is the same at both ends).
        const idleStartedAt = performance.now();
        await sleep(scale.idleWindowMs);
        const idleTransactions = (await probe.transactionCount()) - transactionsAfter - 1;
        const idleTransactionsPerSecond = idleTransactions / ((performance.now() - idleStartedAt) / 1000);
        const transactions = transactionsAfter - count.transactions - ownQueries;
        if (trace !== undefined && diagnostics !== undefined) await writeDiagnostics(join(diagnostics, `${system}.txt`), system, databaseUrl, trace, scale.steps * sessions.length);
        reply({ type: 'report', report: { system, steps: scale.steps, window: scale.window, sessions, transactions, transactionSeconds, idleTransactionsPerSecond } });
        return;
      }
    }
    throw new Error('The parent closed stdin before asking for the report.');
  } finally {
    await subject.close();
    await probe.close();
  }
}

/** Exit once stdout has drained (pipes are asynchronous on some platforms). */
const exitAfterFlush = (code: number): void => void process.stdout.write('', () => process.exit(code));
main().then(
  () => exitAfterFlush(0),
  (error: unknown) => {
    process.stderr.write(`system child failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    exitAfterFlush(1);
  },
);

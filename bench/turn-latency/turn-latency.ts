import pg from 'pg';
import type { BenchDatabase, SiblingDatabase } from '../bench-database.js';
import { summarizeSystemTurns, type TurnComparison, type TurnFigures } from './turn-figures.js';
import { turnLatencyScale } from './turn-latency-scale.js';
import { TurnProcess } from './turn-process.js';
import type { BurstSample, TurnSample } from './turn-protocol.js';
import { formatTurnRatiosTable, formatTurnTable, formatTurnTargetsTable, formatTurnVerdict } from './turn-tables.js';
import { TURN_SYSTEMS, type TurnSystemName } from './turn-system.js';

/** Pause after the CHECKPOINT before each burst. */
const BURST_PAUSE_MS = 1_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** What the parent collects from one system's child. */
interface Collected {
  sessions: Array<[TurnSample, TurnSample]>;
  burst?: BurstSample;
}

/**
 * Issue 25's turn-latency comparison: ours on the fused and on the public journal, LangGraph.js + PostgresSaver
 * (durability "sync") and the naive DBOS loop, each in its own child process and database on the benchmark's
 * server, every model a scripted one answering at once with five streamed tokens. After set-up and warm-up
 * (unmeasured, all at once), rounds of one fresh session per system (its first turn, then a second turn on it)
 * run one command at a time on the server, the order rotating each round (a CHECKPOINT before each round); then
 * each system starts a burst of new sessions at once (a CHECKPOINT and a pause before each). Prints the figures
 * (p50 / p95), their ratios to LangGraph and the targets as PASS/MISS lines (a MISS does not fail the run).
 *
 * @throws Error when a system fails or a turn did not end with the scripted answer.
 * @example
 * const comparison = await measureTurnLatency(database);
 */
export async function measureTurnLatency(database: BenchDatabase): Promise<TurnComparison> {
  const { sessions, burst } = turnLatencyScale();
  process.stdout.write(
    `\nTurn latency (issue 25): ${TURN_SYSTEMS.length} systems, each in its own child process and database, every model scripted to stream a five-token answer at once; ${sessions} rounds of one fresh one-step session per system (turn 1, then turn 2 on the same session; one turn at a time on the server, order rotating), then ${burst} new sessions started at once per system…\n`,
  );
  const collected = await collect(database, sessions, burst);
  const systems = Object.fromEntries(
    TURN_SYSTEMS.map((system) => {
      const { sessions: samples, burst: burstSample } = collected[system];
      if (burstSample === undefined) throw new Error(`The "${system}" child measured no burst.`);
      return [system, summarizeSystemTurns(samples, burstSample)];
    }),
  ) as Record<TurnSystemName, TurnFigures>;
  const comparison: TurnComparison = { sessions, burst, systems };
  process.stdout.write(`\n${formatTurnTable(comparison)}\n\n${formatTurnRatiosTable(comparison)}\n\n${formatTurnTargetsTable(comparison)}\n\n${formatTurnVerdict(comparison)}\n`);
  process.stdout.write(
    [
      '',
      "Times are ms from the start call, in the caller's process. Start call and result: ours execute() and handle.result(); LangGraph graph.stream(input, { streamMode: 'messages', durability: 'sync' }), which resolves only once its first item is ready (about the first token), and the end of that stream; naive loop DBOS.startWorkflow() and handle.getResult().",
      "The model is called: the scripted model's invocation. First token: ours the first text_delta chunk read from handle.stream() (started right after execute() returned), LangGraph the first token chunk of its stream; the naive loop streams nothing (—).",
      `Write transactions: transaction ids assigned from before the turn until the server-wide id stays put for 50 ms after it (only writing transactions get one; nothing else writes meanwhile). Burst: ${burst} turns started by one synchronous loop of start calls, each followed to its result (ours and LangGraph reading their streams); times from the loop's start.`,
      '',
    ].join('\n'),
  );
  return comparison;
}

/** Start every child, run the rounds and the bursts; every child is stopped and its database dropped. */
async function collect(database: BenchDatabase, sessions: number, burst: number): Promise<Record<TurnSystemName, Collected>> {
  const siblings: SiblingDatabase[] = [];
  const children: TurnProcess[] = [];
  let failed = true;
  const startChild = async (system: TurnSystemName): Promise<void> => {
    const sibling = await database.createSibling();
    siblings.push(sibling);
    children.push(await TurnProcess.start(sibling, system));
  };
  try {
    const failure = (await Promise.allSettled(TURN_SYSTEMS.map(startChild))).find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
    children.sort((left, right) => TURN_SYSTEMS.indexOf(left.system) - TURN_SYSTEMS.indexOf(right.system));
    const collected = Object.fromEntries(TURN_SYSTEMS.map((system): [TurnSystemName, Collected] => [system, { sessions: [] }])) as Record<TurnSystemName, Collected>;
    for (let round = 1; round <= sessions; round += 1) {
      await checkpoint(database);
      for (let turn = 0; turn < children.length; turn += 1) {
        const child = children[(round - 1 + turn) % children.length] as TurnProcess;
        collected[child.system].sessions.push((await child.ask({ type: 'session', index: round }, 'session')).turns);
      }
      if (round % 10 === 0 || round === sessions) process.stdout.write(`  round ${round} of ${sessions} done\n`);
    }
    for (const child of children) {
      await checkpoint(database);
      await sleep(BURST_PAUSE_MS);
      collected[child.system].burst = (await child.ask({ type: 'burst', size: burst }, 'burst')).burst;
    }
    failed = false;
    return collected;
  } finally {
    await Promise.all(children.map((child) => child.stop(failed)));
    await Promise.allSettled(siblings.map((sibling) => sibling.drop()));
  }
}

/** Write the dirty pages out (on the benchmark's own database: no system's counts move), so a turn does not pay for earlier ones. */
async function checkpoint(database: BenchDatabase): Promise<void> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query('CHECKPOINT').finally(() => client.end());
}

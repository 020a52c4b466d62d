/**
 * Child process of `npm run bench`'s turn-latency comparison: `node --import tsx bench/turn-latency/turn-child.ts
 * <system>` with `BENCH_DATABASE_URL` set to a fresh database of its own (and `HELIX_JOURNAL` for ours). Sets the
 * system up, runs unmeasured warm-up sessions and a burst, says it is ready; then, on the parent's commands
 * (turn-protocol.ts), measures one session's two turns or a burst of new sessions, and exits when told. The
 * parent runs one command at a time on the whole server, so a turn's write transactions are counted by the
 * server-wide transaction id (idle systems do not write): read before the turn, and after it once the id stays
 * put for `SETTLE_MS` (what a system writes after handing over its result counts too).
 */
import { createInterface } from 'node:readline';
import { journalOf } from '../side-by-side/bench-system.js';
import { openDatabaseProbe, type DatabaseProbe } from '../side-by-side/database-probe.js';
import { openHelixTurns } from './helix-turns.js';
import { openLangGraphTurns } from './langgraph-turns.js';
import { openNaiveTurns } from './naive-turns.js';
import { turnLatencyScale } from './turn-latency-scale.js';
import { TURN_PROTOCOL, type BurstSample, type TurnCommand, type TurnReply, type TurnSample } from './turn-protocol.js';
import { TurnMarks, TURN_SYSTEMS, type TurnMoment, type TurnSystem, type TurnSystemName } from './turn-system.js';

/** A turn's writes are over once the next transaction id stays the same this long. */
const SETTLE_MS = 50;
/** Give up waiting for the writes to settle after this many reads (the count is then what was seen). */
const SETTLE_READS = 40;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function openSystem(system: TurnSystemName, databaseUrl: string): Promise<TurnSystem> {
  switch (system) {
    case 'helix':
    case 'helix-public-journal':
      return openHelixTurns(databaseUrl, journalOf(system) ?? 'fused');
    case 'langgraph':
      return openLangGraphTurns(databaseUrl);
    case 'naive-dbos':
      return openNaiveTurns(databaseUrl);
  }
}

/** The next transaction id once no transaction has started for `SETTLE_MS`. */
async function settledTransactionId(probe: DatabaseProbe): Promise<number> {
  let last = await probe.nextTransactionId();
  for (let read = 1; read < SETTLE_READS; read += 1) {
    await sleep(SETTLE_MS);
    const next = await probe.nextTransactionId();
    if (next === last) return next;
    last = next;
  }
  return last;
}

/** The ms at which `moment` was marked; fails loudly when the system never marked it. */
function required(marks: TurnMarks, moment: TurnMoment, sessionId: string): number {
  const ms = marks.at(moment);
  if (ms === undefined) throw new Error(`A turn of ${sessionId} was never marked "${moment}".`);
  return ms;
}

/** One measured turn: its moments and the write transactions it cost. */
async function measureTurn(system: TurnSystem, probe: DatabaseProbe, sessionId: string, message: string, streams: boolean): Promise<TurnSample> {
  const before = await settledTransactionId(probe);
  const marks = new TurnMarks();
  system.onModelCall = () => marks.modelCalled();
  await system.runTurn(sessionId, message, marks);
  const writeTransactions = (await settledTransactionId(probe)) - before;
  const firstTokenMs = streams ? required(marks, 'firstToken', sessionId) : undefined;
  return {
    returnedMs: required(marks, 'returned', sessionId),
    modelCalledMs: required(marks, 'modelCalled', sessionId),
    ...(firstTokenMs === undefined ? {} : { firstTokenMs }),
    resultMs: required(marks, 'finished', sessionId),
    writeTransactions,
  };
}

/** `size` new sessions started at once (one synchronous loop of start calls), followed to their results. */
async function measureBurst(system: TurnSystem, prefix: string, size: number): Promise<BurstSample> {
  const modelCalls: number[] = [];
  system.onModelCall = () => void modelCalls.push(performance.now());
  const startedAt = performance.now();
  const marks = Array.from({ length: size }, () => new TurnMarks(startedAt));
  await Promise.all(marks.map((turn, index) => system.runTurn(`${prefix}-${index}`, 'Go.', turn)));
  if (modelCalls.length !== size) throw new Error(`A burst of ${size} sessions made ${modelCalls.length} model calls.`);
  return {
    modelCallMs: modelCalls.map((time) => time - startedAt),
    resultMs: marks.map((turn, index) => required(turn, 'finished', `${prefix}-${index}`)),
  };
}

async function main(): Promise<void> {
  const name = process.argv[2] as TurnSystemName;
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  if (!TURN_SYSTEMS.includes(name) || databaseUrl === undefined) {
    throw new Error(`Usage: BENCH_DATABASE_URL=… node --import tsx bench/turn-latency/turn-child.ts <${TURN_SYSTEMS.join('|')}>`);
  }
  const scale = turnLatencyScale();
  const streams = name !== 'naive-dbos';
  const probe = await openDatabaseProbe(databaseUrl);
  const system = await openSystem(name, databaseUrl);
  const session = async (sessionId: string): Promise<[TurnSample, TurnSample]> => [
    await measureTurn(system, probe, sessionId, 'Go.', streams),
    await measureTurn(system, probe, sessionId, 'Again.', streams),
  ];
  const reply = (message: TurnReply): void => void process.stdout.write(TURN_PROTOCOL.line(message));
  try {
    for (let index = 0; index < scale.warmUpSessions; index += 1) await session(`${name}-warm-up-${index}`);
    // A first burst is slower (pools still filling, code not yet optimized): the measured one is the second.
    await measureBurst(system, `${name}-warm-up-burst`, scale.burst);
    reply({ type: 'ready' });
    for await (const line of createInterface({ input: process.stdin })) {
      const command = TURN_PROTOCOL.read<TurnCommand>(line);
      if (command?.type === 'session') reply({ type: 'session', turns: await session(`${name}-${command.index}`) });
      if (command?.type === 'burst') reply({ type: 'burst', burst: await measureBurst(system, `${name}-burst`, command.size) });
      if (command?.type === 'exit') return;
    }
    throw new Error('The parent closed stdin before telling the child to exit.');
  } finally {
    await Promise.allSettled([system.close(), probe.close()]);
  }
}

/** Why the child failed, on stderr; its exit code. */
function reportFailure(error: unknown): number {
  process.stderr.write(`turn-latency child failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 1;
}

// Exit once stdout has drained (pipes are asynchronous on some platforms).
void main()
  .then(() => 0, reportFailure)
  .then((code) => process.stdout.write('', () => process.exit(code)));

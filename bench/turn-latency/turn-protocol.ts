/**
 * One turn as a child measured it: ms from the start call to each moment (`firstTokenMs` absent for a system
 * that streams nothing) and the write transactions the turn cost (transaction ids assigned on the server).
 *
 * @example
 * const sample: TurnSample = { returnedMs: 4.7, modelCalledMs: 11.3, firstTokenMs: 14.8, resultMs: 22.9, writeTransactions: 15 };
 */
export interface TurnSample {
  returnedMs: number;
  modelCalledMs: number;
  firstTokenMs?: number;
  resultMs: number;
  writeTransactions: number;
}

/**
 * A burst as a child measured it: for each of its sessions, ms from the common start to its model call and to
 * its result.
 *
 * @example
 * const burst: BurstSample = { modelCallMs: [60, 70], resultMs: [90, 95] };
 */
export interface BurstSample {
  modelCallMs: number[];
  resultMs: number[];
}

/**
 * What the parent asks a turn-latency child (one line on its stdin): run measured session `index` (its first and
 * second turn), start `size` new sessions at once, or shut down and exit.
 *
 * @example
 * const command: TurnCommand = { type: 'burst', size: 128 };
 */
export type TurnCommand = { type: 'session'; index: number } | { type: 'burst'; size: number } | { type: 'exit' };

/**
 * What a turn-latency child answers (one line on its stdout, among whatever else it prints).
 *
 * @example
 * const reply: TurnReply = { type: 'ready' };
 */
export type TurnReply = { type: 'ready' } | { type: 'session'; turns: [TurnSample, TurnSample] } | { type: 'burst'; burst: BurstSample };

const PREFIX = 'TURN_LATENCY ';

/**
 * The line carrying a command or a reply.
 *
 * @example
 * child.stdin.write(turnLine({ type: 'exit' }));
 */
export function turnLine(message: TurnCommand | TurnReply): string {
  return `${PREFIX}${JSON.stringify(message)}\n`;
}

/**
 * The command or reply a line carries, `undefined` for any other output.
 *
 * @example
 * const reply = readTurnLine<TurnReply>(line);
 */
export function readTurnLine<T extends TurnCommand | TurnReply>(line: string): T | undefined {
  if (!line.startsWith(PREFIX)) return undefined;
  return JSON.parse(line.slice(PREFIX.length)) as T;
}

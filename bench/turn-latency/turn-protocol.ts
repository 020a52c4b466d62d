import { LineProtocol } from '../bench-child.js';
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

/**
 * The line protocol between the turn-latency bench and its children.
 *
 * @example
 * child.stdin.write(TURN_PROTOCOL.line({ type: 'exit' }));
 */
export const TURN_PROTOCOL = new LineProtocol<TurnCommand | TurnReply>('TURN_LATENCY ');

import type { SessionFigures, SystemReport } from './system-report.js';

/**
 * What the parent asks a system child (one line on its stdin): run measured session `index`, read the
 * transaction count at the start of the measured period, or read it at the end, measure the idle rate,
 * report and exit.
 *
 * @example
 * const command: ChildCommand = { type: 'session', index: 1 };
 */
export type ChildCommand = { type: 'session'; index: number } | { type: 'count-start' } | { type: 'finish' };

/**
 * What a system child answers (one line on its stdout, among whatever else it prints).
 *
 * @example
 * const reply: ChildReply = { type: 'ready' };
 */
export type ChildReply =
  | { type: 'ready' }
  | { type: 'session'; figures: SessionFigures }
  | { type: 'counted' }
  | { type: 'report'; report: SystemReport };

const PREFIX = 'BENCH_CHILD ';

/**
 * The line carrying a command or reply.
 *
 * @example
 * child.stdin.write(formatProtocolLine({ type: 'finish' }));
 */
export function formatProtocolLine(message: ChildCommand | ChildReply): string {
  return `${PREFIX}${JSON.stringify(message)}\n`;
}

/**
 * The message a line carries, `undefined` for any other output.
 *
 * @example
 * const reply = parseProtocolLine<ChildReply>(line);
 */
export function parseProtocolLine<T extends ChildCommand | ChildReply>(line: string): T | undefined {
  return line.startsWith(PREFIX) ? (JSON.parse(line.slice(PREFIX.length)) as T) : undefined;
}

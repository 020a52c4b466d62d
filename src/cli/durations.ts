import { CliUsageError } from './cli-errors.js';

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/;

/**
 * Parse a duration such as `90s`, `15m`, `12h`, `30d`, `2w` or `250ms` into milliseconds.
 *
 * @throws CliUsageError `CLI_USAGE` for anything else (the message names the option, not the value).
 * @example
 * parseDuration('12h', '--older-than'); // 43_200_000
 */
export function parseDuration(text: string, option: string): number {
  const match = DURATION.exec(text.trim());
  const unit = match?.[2] === undefined ? undefined : UNIT_MS[match[2]];
  if (match === null || unit === undefined) throw new CliUsageError(`${option} must be a duration such as 90s, 15m, 12h or 30d.`);
  return Math.round(Number(match[1]) * unit);
}

/**
 * A point in time from `--since`: a duration back from `now` (`2h`: two hours ago) or an ISO 8601 date.
 *
 * @throws CliUsageError `CLI_USAGE` for anything else.
 * @example
 * parseSince('2h', Date.parse('2025-01-01T12:00:00Z')); // Date.parse('2025-01-01T10:00:00Z')
 */
export function parseSince(text: string, now: number): number {
  if (DURATION.test(text.trim())) return now - parseDuration(text, '--since');
  const parsed = /^\d{4}-\d{2}-\d{2}/.test(text.trim()) ? Date.parse(text.trim()) : Number.NaN;
  if (Number.isNaN(parsed)) throw new CliUsageError('--since must be a duration back from now (e.g. 2h, 7d) or an ISO date (e.g. 2025-01-31T12:00:00Z).');
  return parsed;
}

import type { SessionListQuery, SessionStatus } from '../index.js';
import { CliUsageError } from './cli-errors.js';
import { parseSince } from './durations.js';

const STATUSES: readonly SessionStatus[] = ['active', 'completed', 'failed', 'interrupted', 'paused'];

/**
 * The options of `sessions list` as the argument parser hands them over (strings, flags).
 *
 * @example
 * const options: ListOptions = { agent: 'assistant', status: 'active,failed', since: '2h', limit: '20' };
 */
export interface ListOptions {
  agent?: string;
  /** Comma-separated session statuses. */
  status?: string;
  /** `--awaiting-human` true, `--no-awaiting-human` false, neither undefined. */
  awaitingHuman?: boolean;
  since?: string;
  user?: string;
  /** Only sessions created without a user. */
  anonymous?: boolean;
  /** Sub-agent and companion sessions too. */
  includeChildren?: boolean;
  limit?: string;
  cursor?: string;
}

/**
 * Map `sessions list` options to the store's `SessionListQuery` (pure; `now` for relative `--since`).
 *
 * @throws CliUsageError `CLI_USAGE` for an unknown status, a limit outside 1–500, a bad `--since`, or `--user` with `--anonymous`.
 * @example
 * listQueryOf({ status: 'active', awaitingHuman: true, limit: '20' }, Date.now()); // { status: ['active'], awaitingHuman: true, limit: 20, rootsOnly: true }
 */
export function listQueryOf(options: ListOptions, now: number): SessionListQuery {
  if (options.user !== undefined && options.anonymous === true) throw new CliUsageError('--user and --anonymous exclude each other.');
  const query: SessionListQuery = { rootsOnly: options.includeChildren !== true, limit: limitOf(options.limit, 50) };
  if (options.agent !== undefined) query.agentType = options.agent;
  if (options.status !== undefined) query.status = statusesOf(options.status);
  if (options.awaitingHuman !== undefined) query.awaitingHuman = options.awaitingHuman;
  if (options.since !== undefined) query.updatedSince = parseSince(options.since, now);
  if (options.user !== undefined) query.userId = options.user;
  if (options.anonymous === true) query.userId = null;
  if (options.cursor !== undefined) query.cursor = options.cursor;
  return query;
}

/**
 * A `--limit` value: an integer from 1 to 500, `fallback` when absent.
 *
 * @throws CliUsageError `CLI_USAGE` otherwise.
 * @example
 * limitOf('20', 50); // 20
 */
export function limitOf(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const limit = Number(text);
  if (!/^\d+$/.test(text.trim()) || limit < 1 || limit > 500) throw new CliUsageError('--limit must be an integer from 1 to 500.');
  return limit;
}

/**
 * A positive integer option (`--batch-size`, `--messages`) within `[min, max]`.
 *
 * @throws CliUsageError `CLI_USAGE` otherwise.
 * @example
 * integerOption('25', '--batch-size', 1, 1_000); // 25
 */
export function integerOption(text: string, option: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < min || value > max) throw new CliUsageError(`${option} must be an integer from ${min} to ${max}.`);
  return value;
}

function statusesOf(text: string): SessionStatus[] {
  const statuses = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  const unknown = statuses.filter((status) => !STATUSES.includes(status as SessionStatus));
  if (statuses.length === 0 || unknown.length > 0) throw new CliUsageError(`--status takes a comma-separated list of: ${STATUSES.join(', ')}.`);
  return statuses as SessionStatus[];
}

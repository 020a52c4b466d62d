import { HelixError } from '../index.js';
import { HelixCliError } from './cli-errors.js';

const MAX_MESSAGE = 300;
const CREDENTIALS_IN_URL = /([a-z][a-z0-9+.-]*:\/\/)[^/\s:@]*(?::[^/\s@]*)?@/gi;
const BEARER = /\bBearer\s+\S+/gi;

/**
 * What the CLI prints of an error: its code and a bounded, payload-free message.
 *
 * @example
 * const report: ErrorReport = { code: 'SESSION_NOT_FOUND', message: 'No session with this id exists.' };
 */
export interface ErrorReport {
  code: string;
  message: string;
}

/**
 * A text as the CLI may print it: credentials inside URLs and bearer tokens removed, at most 300 characters.
 *
 * @example
 * safeText('connect postgres://app:pw@db/app failed'); // 'connect postgres://***@db/app failed'
 */
export function safeText(text: string): string {
  const redacted = text.replace(CREDENTIALS_IN_URL, '$1***@').replace(BEARER, 'Bearer ***');
  return redacted.length <= MAX_MESSAGE ? redacted : `${redacted.slice(0, MAX_MESSAGE - 1)}…`;
}

/**
 * Report an error without its payload: the CLI's, the executor's and the server's errors keep their code and their
 * own (payload-free) message; anything else (a driver's or a library's error) only its class name.
 *
 * @example
 * reportOf(new TypeError('boom')); // { code: 'INTERNAL_ERROR', message: 'The operation failed (TypeError); run again with --verbose for details.' }
 */
export function reportOf(error: unknown): ErrorReport {
  if (HelixCliError.isInstance(error) || HelixError.isInstance(error)) return { code: error.code, message: safeText(error.message) };
  const name = error instanceof Error ? error.name : typeof error;
  return { code: 'INTERNAL_ERROR', message: `The operation failed (${safeText(name)}); run again with --verbose for details.` };
}

/**
 * The detail `--verbose` prints: the error's class, message and causes, each redacted and bounded.
 *
 * @example
 * for (const line of verboseLines(error)) process.stderr.write(`${line}\n`);
 */
export function verboseLines(error: unknown): string[] {
  const lines: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth += 1) {
    const label = depth === 0 ? 'error' : 'cause';
    lines.push(current instanceof Error ? `${label}: ${current.name}: ${safeText(current.message)}` : `${label}: ${typeof current}`);
    current = current instanceof Error ? current.cause : undefined;
  }
  return lines;
}

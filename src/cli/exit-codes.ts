import { HelixError } from '../index.js';
import { HelixCliError } from './cli-errors.js';

/**
 * The CLI's exit codes: 0 done; 1 failed unexpectedly; 2 bad usage; 3 no connection configured; 4 not available
 * in this mode or on this server; 5 not found; 6 refused in the session's current state; 7 database or server
 * unreachable or credentials refused.
 *
 * @example
 * process.exitCode = EXIT_CODES.notFound; // 5
 */
export const EXIT_CODES = {
  ok: 0,
  failure: 1,
  usage: 2,
  notConfigured: 3,
  unsupported: 4,
  notFound: 5,
  refused: 6,
  unavailable: 7,
} as const;

/**
 * One of the CLI's exit codes.
 *
 * @example
 * const code: ExitCode = EXIT_CODES.refused;
 */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

const EXIT_OF_CODE: Readonly<Record<string, ExitCode>> = {
  CLI_USAGE: EXIT_CODES.usage,
  INVALID_ARGUMENT: EXIT_CODES.usage,
  INVALID_SUBMISSION: EXIT_CODES.usage,
  INVALID_REQUEST: EXIT_CODES.usage,
  INVALID_INPUT: EXIT_CODES.usage,
  SESSION_ID_REQUIRED: EXIT_CODES.usage,
  PAYLOAD_TOO_LARGE: EXIT_CODES.usage,
  CLI_NOT_CONFIGURED: EXIT_CODES.notConfigured,
  CLI_UNSUPPORTED_IN_MODE: EXIT_CODES.unsupported,
  CLI_SERVER_ROUTE_MISSING: EXIT_CODES.unsupported,
  CLI_CONSOLE_REQUIRED: EXIT_CODES.unsupported,
  RUNTIME_NO_WORKSPACE_SUPPORT: EXIT_CODES.unsupported,
  SESSION_LISTING_UNSUPPORTED: EXIT_CODES.unsupported,
  SESSION_NOT_FOUND: EXIT_CODES.notFound,
  AGENT_NOT_FOUND: EXIT_CODES.notFound,
  NOT_FOUND: EXIT_CODES.notFound,
  CLI_CALL_NOT_FOUND: EXIT_CODES.notFound,
  CHECKPOINT_NOT_FOUND: EXIT_CODES.notFound,
  NO_ACTIVE_RUN: EXIT_CODES.refused,
  NOT_RESUMABLE: EXIT_CODES.refused,
  NOT_A_ROOT_SESSION: EXIT_CODES.refused,
  SESSION_NOT_CONTINUABLE: EXIT_CODES.refused,
  AGENT_ALREADY_RUNNING: EXIT_CODES.refused,
  SESSION_AGENT_MISMATCH: EXIT_CODES.refused,
  DBOS_MODE_MISMATCH: EXIT_CODES.refused,
  STALE_STATE: EXIT_CODES.refused,
  CLI_ALREADY_ANSWERED: EXIT_CODES.refused,
  CLI_NO_OPEN_CALLS: EXIT_CODES.refused,
  CLI_CONNECTION_FAILED: EXIT_CODES.unavailable,
  UNAUTHENTICATED: EXIT_CODES.unavailable,
  STORE_ERROR: EXIT_CODES.unavailable,
};

/**
 * The exit code for an error: by its code when it is the CLI's, the executor's or the server's; 1 otherwise.
 *
 * @example
 * exitCodeOf(new CliNotConfiguredError()); // 3
 */
export function exitCodeOf(error: unknown): ExitCode {
  const code = HelixCliError.isInstance(error) || HelixError.isInstance(error) ? error.code : undefined;
  return (code === undefined ? undefined : EXIT_OF_CODE[code]) ?? EXIT_CODES.failure;
}

/**
 * The exit code of a bulk operation: 0 when every item succeeded, else the exit code of the first failure.
 *
 * @example
 * bulkExitCode([{ error: undefined }, { error: { code: 'NO_ACTIVE_RUN' } }]); // 6
 */
export function bulkExitCode(items: ReadonlyArray<{ error?: { code: string } | undefined }>): ExitCode {
  const failed = items.find((item) => item.error !== undefined);
  if (failed?.error === undefined) return EXIT_CODES.ok;
  return EXIT_OF_CODE[failed.error.code] ?? EXIT_CODES.failure;
}

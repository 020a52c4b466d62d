import { HelixError, type HelixErrorCode } from '../index.js';
import type { AgentServerErrorCode } from '../server/index.js';

/**
 * Codes of the errors the operator CLI raises itself (the executor's and the server's keep their own codes).
 *
 * @example
 * if (HelixCliError.isInstance(error) && error.code === ('CLI_NOT_CONFIGURED' satisfies CliErrorCode)) showSetup();
 */
export type CliErrorCode =
  | 'CLI_USAGE'
  | 'CLI_NOT_CONFIGURED'
  | 'CLI_UNSUPPORTED_IN_MODE'
  | 'CLI_SERVER_ROUTE_MISSING'
  | 'CLI_CONNECTION_FAILED'
  | 'CLI_SERVER_ERROR'
  | 'CLI_CALL_NOT_FOUND'
  | 'CLI_ALREADY_ANSWERED'
  | 'CLI_NO_OPEN_CALLS'
  | 'CLI_CONSOLE_REQUIRED';

/**
 * Every code an error the CLI reports may carry: its own, the executor's, and the agent server's.
 *
 * @example
 * const code: CliReportedCode = 'NO_ACTIVE_RUN';
 */
export type CliReportedCode = CliErrorCode | HelixErrorCode | AgentServerErrorCode;

/**
 * Base class of the CLI's own errors: a stable `code`, a message that says what to do next and never contains a
 * token, a connection string or a payload.
 *
 * @example
 * throw new HelixCliError('CLI_USAGE', '--limit must be an integer from 1 to 500.');
 */
export class HelixCliError extends HelixError {
  constructor(code: CliReportedCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HelixCliError';
  }

  /**
   * True for any error of the CLI's own hierarchy (matched on `name` and `code`, not `instanceof`).
   *
   * @example
   * if (HelixCliError.isInstance(error)) console.error(error.code);
   */
  static override isInstance(error: unknown): error is HelixCliError {
    if (!HelixError.isInstance(error)) return false;
    return error instanceof HelixCliError || /^(HelixCli|Cli)[A-Za-z]*Error$/.test(error.name);
  }
}

/**
 * Neither `DATABASE_URL` nor an AgentServer (`--server` / `HELIX_SERVER_URL`) is configured.
 *
 * @example
 * throw new CliNotConfiguredError();
 */
export class CliNotConfiguredError extends HelixCliError {
  constructor() {
    super(
      'CLI_NOT_CONFIGURED',
      'No connection configured: set DATABASE_URL (direct: the Postgres of the state store), or pass --server URL with --token (or set HELIX_SERVER_URL and HELIX_TOKEN) to go through an AgentServer.',
    );
    this.name = 'CliNotConfiguredError';
  }
}

/**
 * Malformed arguments or options (also the argument parser's own errors).
 *
 * @example
 * throw new CliUsageError('--older-than must be a duration such as 30d, 12h or 90s.');
 */
export class CliUsageError extends HelixCliError {
  constructor(message: string) {
    super('CLI_USAGE', message);
    this.name = 'CliUsageError';
  }
}

/**
 * A command (or option) the chosen connection mode cannot serve; the message names the mode that can.
 *
 * @example
 * throw new CliUnsupportedError('resume', 'direct', 'pass --server URL: the AgentServer has the agent definitions that run the session.');
 */
export class CliUnsupportedError extends HelixCliError {
  constructor(command: string, mode: 'direct' | 'server', remedy: string) {
    super('CLI_UNSUPPORTED_IN_MODE', `${command} is not available in ${mode} mode; ${remedy}`);
    this.name = 'CliUnsupportedError';
  }
}

/**
 * The AgentServer has no route for the command (its console API is off, or an older server).
 *
 * @example
 * throw new CliRouteMissingError('retry', '/console/api/sessions/s1/retry');
 */
export class CliRouteMissingError extends HelixCliError {
  constructor(command: string, route: string, remedy = 'upgrade the server.') {
    super('CLI_SERVER_ROUTE_MISSING', `The AgentServer has no ${route} route, so ${command} cannot go through it; ${remedy}`);
    this.name = 'CliRouteMissingError';
  }
}

/**
 * A command only the AgentServer's console API serves (`sessions list`, `sessions pending` across sessions), against
 * a server that does not serve the console API at `--console-path` (its `console` option is off, or it is elsewhere).
 *
 * @example
 * throw new CliConsoleRequiredError('sessions list', '/console');
 */
export class CliConsoleRequiredError extends HelixCliError {
  constructor(command: string, consolePath: string) {
    super(
      'CLI_CONSOLE_REQUIRED',
      `${command} needs the AgentServer's console API, which the server does not serve under ${consolePath}/api: enable its \`console\` option (pass --console-path if it is not at /console), or use direct mode (DATABASE_URL).`,
    );
    this.name = 'CliConsoleRequiredError';
  }
}

/**
 * The database or the AgentServer could not be reached (the message names the server's origin, never credentials).
 *
 * @example
 * throw new CliConnectionError('Could not reach the AgentServer at http://127.0.0.1:3000 (ECONNREFUSED).');
 */
export class CliConnectionError extends HelixCliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CLI_CONNECTION_FAILED', message, options);
    this.name = 'CliConnectionError';
  }
}

/**
 * An error answer of the AgentServer, with the server's code (e.g. `SESSION_NOT_FOUND`, `NO_ACTIVE_RUN`) and status.
 *
 * @example
 * throw new CliServerError(409, 'NO_ACTIVE_RUN', 'The session has no running run.');
 */
export class CliServerError extends HelixCliError {
  constructor(
    readonly status: number,
    code: CliReportedCode,
    message: string,
  ) {
    super(code, message);
    this.name = 'CliServerError';
  }
}

/**
 * A submission the executor did not take: the call is unknown (`CLI_CALL_NOT_FOUND`), was answered before
 * (`CLI_ALREADY_ANSWERED`), or the session holds no open call of that kind (`CLI_NO_OPEN_CALLS`).
 *
 * @example
 * throw new CliAnswerRefusedError('CLI_ALREADY_ANSWERED', 'Call c1 of session s1 was answered before.');
 */
export class CliAnswerRefusedError extends HelixCliError {
  constructor(code: 'CLI_CALL_NOT_FOUND' | 'CLI_ALREADY_ANSWERED' | 'CLI_NO_OPEN_CALLS', message: string) {
    super(code, message);
    this.name = 'CliAnswerRefusedError';
  }
}

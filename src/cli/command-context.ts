import { DirectBackend } from './backend/direct-backend.js';
import type { OperatorBackend } from './backend/operator-backend.js';
import { ServerBackend } from './backend/server-backend.js';
import { resolveTarget, type ConnectionTarget } from './connection-target.js';
import { parseDuration } from './durations.js';
import { ProgressBar } from './render/progress.js';

/**
 * The process around the CLI: output streams, environment and clock (tests pass their own).
 *
 * @example
 * const io: CliIo = { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text), stderrIsTTY: false, env: process.env, now: Date.now };
 */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  stderrIsTTY: boolean;
  env: Readonly<Record<string, string | undefined>>;
  now(): number;
  /** Connects server mode; default the global `fetch`. */
  fetch?: typeof fetch;
}

/**
 * The global options every command accepts.
 *
 * @example
 * const options: GlobalOptions = { json: true, server: 'http://127.0.0.1:3000', token: 't' };
 */
export interface GlobalOptions {
  json?: boolean;
  server?: string;
  token?: string;
  direct?: boolean;
  schema?: string;
  consolePath?: string;
  progress?: boolean;
  verbose?: boolean;
  retryBudget?: string;
}

/**
 * What a command's action works with: the backend of the resolved mode (opened on first use), output for people or
 * `--json`, the progress bar and `--verbose` logging.
 *
 * @example
 * const page = await context.backend().listSessions(query);
 * context.print(page, () => sessionsTable(page, context.io.now()));
 */
export class CommandContext {
  private opened: OperatorBackend | undefined;

  constructor(
    readonly io: CliIo,
    readonly options: GlobalOptions,
  ) {}

  /** True with `--json`: results are printed as JSON on stdout. */
  get json(): boolean {
    return this.options.json === true;
  }

  /**
   * The connection the global options and the environment select (see `resolveTarget`).
   *
   * @example
   * if (context.target().mode === 'server') …
   */
  target(): ConnectionTarget {
    return resolveTarget(this.options, this.io.env);
  }

  /**
   * The backend, opened on first use.
   *
   * @throws CliNotConfiguredError `CLI_NOT_CONFIGURED` without a database or a server.
   * @example
   * await context.backend().interrupt('s1');
   */
  backend(): OperatorBackend {
    if (this.opened !== undefined) return this.opened;
    const target = this.target();
    if (target.mode === 'server') {
      this.opened = new ServerBackend(target.url, target.token, target.consolePath, this.io.fetch ?? fetch);
    } else {
      const retryBudgetMs = this.options.retryBudget === undefined ? 10_000 : parseDuration(this.options.retryBudget, '--retry-budget');
      this.opened = new DirectBackend({
        databaseUrl: target.databaseUrl,
        systemDatabaseUrl: target.systemDatabaseUrl,
        retryBudgetMs,
        ...(target.schema === undefined ? {} : { schema: target.schema }),
        log: (line) => this.log(line),
      });
    }
    return this.opened;
  }

  /**
   * Print a result: `value` as JSON with `--json`, else `text()` for people.
   *
   * @example
   * context.print({ sessionId, runId }, () => `Resumed ${sessionId}: run ${runId}`);
   */
  print(value: unknown, text: () => string): void {
    this.io.stdout(`${this.json ? JSON.stringify(value, null, 2) : text()}\n`);
  }

  /**
   * A note for people on stderr (never with `--json`).
   *
   * @example
   * context.note('The run parked: resume it through --server.');
   */
  note(text: string): void {
    if (!this.json) this.io.stderr(`${text}\n`);
  }

  /**
   * A progress bar over `total` items: drawn on stderr when it is a terminal, or always with `--progress`; never with `--no-progress`.
   *
   * @example
   * const bar = context.progress(ids.length);
   */
  progress(total: number): ProgressBar {
    const enabled = this.options.progress ?? (this.io.stderrIsTTY && !this.json);
    return new ProgressBar({ write: (text) => this.io.stderr(text), interactive: this.io.stderrIsTTY }, total, enabled);
  }

  /**
   * A diagnostic line on stderr with `--verbose`.
   *
   * @example
   * context.log('DBOS launched');
   */
  log(line: string): void {
    if (this.options.verbose === true) this.io.stderr(`[helix-agents] ${line}\n`);
  }

  /**
   * Close the backend (connections, DBOS) if it was opened.
   *
   * @example
   * await context.close();
   */
  async close(): Promise<void> {
    await this.opened?.close();
  }
}

import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { CommandContext, type CliIo, type GlobalOptions } from './command-context.js';
import { registerAnswerCommands } from './commands/answer-commands.js';
import type { CommandRunner } from './commands/command-runner.js';
import { registerControlCommands } from './commands/control-commands.js';
import { registerPruneCommand } from './commands/prune-command.js';
import { registerSessionCommands } from './commands/session-commands.js';
import { reportOf, safeText, verboseLines } from './error-report.js';
import { EXIT_CODES, exitCodeOf } from './exit-codes.js';

const HELP_AFTER = `
Connection: DATABASE_URL (direct: the state store's Postgres; DBOS_SYSTEM_DATABASE_URL when DBOS's system database
is elsewhere), or --server URL --token T (or HELIX_SERVER_URL, HELIX_TOKEN) for an AgentServer (sessions list,
pending across sessions and retry use its console API). resume and retry run the agent, so they go through the server. Exit codes: 0 ok, 1 failed, 2 usage, 3 not configured, 4 not available in
this mode, 5 not found, 6 refused in the session's state, 7 database or server unreachable or credentials refused.`;

/**
 * Run the operator CLI on `argv` (the arguments after the program name) and return its exit code. Output goes to
 * `io`; nothing here calls `process.exit`.
 *
 * @example
 * process.exitCode = await runCli(['sessions', 'list', '--json'], nodeIo());
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const json = argv.includes('--json');
  const state: { exitCode: number; context?: CommandContext } = { exitCode: EXIT_CODES.ok };
  const run: CommandRunner = async (command, action) => {
    const context = new CommandContext(io, command.optsWithGlobals<GlobalOptions>());
    state.context = context;
    state.exitCode = await action(context);
  };
  const program = buildProgram(io, run, json);
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    state.exitCode = failed(error, io, json, argv.includes('--verbose'));
  } finally {
    await closeQuietly(state.context, io);
  }
  return state.exitCode;
}

/**
 * The argument parser: global options and every command (`sessions list|show|pending`, `approve`, `deny`, `submit`,
 * `interrupt`, `abort`, `resume`, `retry`, `prune`).
 *
 * @example
 * buildProgram(io, run, false).helpInformation();
 */
export function buildProgram(io: CliIo, run: CommandRunner, json: boolean): Command {
  const program = new Command('helix-agents')
    .description('Operate helix-agents-dbos sessions: look at them, answer their human waits, control their runs, prune.')
    .version(packageVersion(), '-V, --version')
    .option('--json', 'print results as JSON (for scripts)')
    .option('--server <url>', 'go through this AgentServer (default HELIX_SERVER_URL)')
    .option('--token <token>', 'bearer token for --server (default HELIX_TOKEN)')
    .option('--console-path <path>', "the server's console API mount (default HELIX_CONSOLE_PATH, else /console)")
    .option('--direct', 'use DATABASE_URL even when HELIX_SERVER_URL is set')
    .option('--schema <schema>', 'schema of the agent tables, direct mode (default HELIX_SCHEMA, else public)')
    .option('--retry-budget <duration>', 'how long to wait out transient database errors, direct mode (default 10s)')
    .option('--progress', 'draw progress bars on stderr even when it is not a terminal')
    .option('--no-progress', 'never draw progress bars')
    .option('--verbose', 'diagnostics on stderr (DBOS warnings, error causes; secrets redacted)')
    .addHelpText('after', HELP_AFTER)
    .showHelpAfterError('(run helix-agents --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      writeErr: (text) => io.stderr(text),
      outputError: (text, write) => write(json ? `${JSON.stringify({ error: { code: 'CLI_USAGE', message: text.trim().replace(/^error: /, '') } })}\n` : text),
    });
  registerSessionCommands(program, run);
  registerAnswerCommands(program, run);
  registerControlCommands(program, run);
  registerPruneCommand(program, run);
  for (const command of program.commands) command.exitOverride();
  return program;
}

function failed(error: unknown, io: CliIo, json: boolean, verbose: boolean): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT_CODES.ok;
    return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
  }
  const report = reportOf(error);
  io.stderr(json ? `${JSON.stringify({ error: report })}\n` : `helix-agents: ${report.code}: ${report.message}\n`);
  if (verbose) for (const line of verboseLines(error)) io.stderr(`[helix-agents] ${line}\n`);
  return exitCodeOf(error);
}

async function closeQuietly(context: CommandContext | undefined, io: CliIo): Promise<void> {
  try {
    await context?.close();
  } catch (error) {
    io.stderr(`helix-agents: closing the connections failed (${safeText(error instanceof Error ? error.name : typeof error)}).\n`);
  }
}

function packageVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

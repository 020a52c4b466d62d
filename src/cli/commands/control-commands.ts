import type { Command } from 'commander';
import type { ResumeOptions } from '../../index.js';
import type { RunStarted } from '../backend/operator-backend.js';
import { CliUsageError } from '../cli-errors.js';
import type { CommandContext } from '../command-context.js';
import { bulkExitCode, EXIT_CODES } from '../exit-codes.js';
import { controlTable, type ControlResult } from '../render/views.js';
import { eachWithProgress, type CommandRunner } from './command-runner.js';

const RESUME_MODES: ReadonlyArray<NonNullable<ResumeOptions['mode']>> = ['continue', 'with_message', 'with_confirmation', 'from_checkpoint'];

/**
 * The executor's `ResumeOptions` from `resume`'s options (pure): `with_message` needs `--message`,
 * `from_checkpoint` needs `--checkpoint`; a message or checkpoint alone picks its mode.
 *
 * @throws CliUsageError `CLI_USAGE` for an unknown mode or a missing or stray companion option.
 * @example
 * resumeOptionsOf({ message: 'Use metric units.' }); // { mode: 'with_message', message: 'Use metric units.' }
 */
export function resumeOptionsOf(options: { mode?: string; message?: string; checkpoint?: string }): ResumeOptions {
  const mode = options.mode ?? (options.message !== undefined ? 'with_message' : options.checkpoint !== undefined ? 'from_checkpoint' : undefined);
  if (mode !== undefined && !RESUME_MODES.includes(mode as NonNullable<ResumeOptions['mode']>)) throw new CliUsageError(`--mode must be one of: ${RESUME_MODES.join(', ')}.`);
  if (mode === 'with_message' && options.message === undefined) throw new CliUsageError('--mode with_message needs --message <text>.');
  if (mode === 'from_checkpoint' && options.checkpoint === undefined) throw new CliUsageError('--mode from_checkpoint needs --checkpoint <id>.');
  if (options.message !== undefined && mode !== 'with_message') throw new CliUsageError('--message goes with --mode with_message.');
  if (options.checkpoint !== undefined && mode !== 'from_checkpoint') throw new CliUsageError('--checkpoint goes with --mode from_checkpoint.');
  return {
    ...(mode === undefined ? {} : { mode: mode as NonNullable<ResumeOptions['mode']> }),
    ...(options.message === undefined ? {} : { message: options.message }),
    ...(options.checkpoint === undefined ? {} : { checkpointId: options.checkpoint }),
  };
}

/**
 * Register `interrupt`, `abort`, `resume` and `retry`.
 *
 * @example
 * registerControlCommands(program, run);
 */
export function registerControlCommands(program: Command, run: CommandRunner): void {
  program
    .command('interrupt')
    .description('Stop the running run of one or more sessions at the next step boundary (resumable).')
    .argument('<sessionIds...>', 'the sessions')
    .option('--reason <text>', 'why (recorded)')
    .action((sessionIds: string[], options: { reason?: string }, command: Command) =>
      run(command, (context) => control(context, sessionIds, 'interrupt', options.reason)),
    );

  program
    .command('abort')
    .description('Abort one or more sessions: cancel the run and its sub-agents, record the session failed (aborted). Not resumable.')
    .argument('<sessionIds...>', 'the sessions')
    .option('--reason <text>', 'why (recorded)')
    .action((sessionIds: string[], options: { reason?: string }, command: Command) =>
      run(command, (context) => control(context, sessionIds, 'abort', options.reason)),
    );

  program
    .command('resume')
    .description('Continue an interrupted or parked session (server mode: the AgentServer runs the agent).')
    .argument('<sessionId>', 'the session')
    .option('--mode <mode>', `one of ${RESUME_MODES.join(', ')} (default continue)`)
    .option('--message <text>', 'a message to continue with (with_message)')
    .option('--checkpoint <id>', 'the checkpoint to continue from (from_checkpoint)')
    .action((sessionId: string, options: { mode?: string; message?: string; checkpoint?: string }, command: Command) =>
      run(command, async (context) => {
        const resumeOptions = resumeOptionsOf(options);
        return printRun(context, 'Resumed', await context.backend().resume(sessionId, resumeOptions));
      }),
    );

  program
    .command('retry')
    .description('Re-run a failed session from its history (server mode: the AgentServer runs the agent).')
    .argument('<sessionId>', 'the session')
    .action((sessionId: string, _options: unknown, command: Command) => run(command, async (context) => printRun(context, 'Retried', await context.backend().retry(sessionId))));
}

async function control(context: CommandContext, sessionIds: readonly string[], operation: 'interrupt' | 'abort', reason: string | undefined): Promise<number> {
  const backend = context.backend();
  const done = await eachWithProgress(context, sessionIds, (sessionId) => `${operation} ${sessionId}`, (sessionId) =>
    operation === 'interrupt' ? backend.interrupt(sessionId, reason) : backend.abort(sessionId, reason),
  );
  const status = operation === 'interrupt' ? 'interrupt_requested' : 'aborted';
  const results: ControlResult[] = done.map((entry) =>
    entry.error === undefined ? { sessionId: entry.item, status } : { sessionId: entry.item, error: entry.error },
  );
  context.print({ results }, () => controlTable(results));
  return bulkExitCode(results);
}

function printRun(context: CommandContext, verb: string, run: RunStarted): number {
  context.print(run, () => `${verb} ${run.sessionId}: run ${run.runId}${run.streamId === undefined ? '' : ` (stream ${run.streamId} after sequence ${run.startSequence ?? 0})`}`);
  return EXIT_CODES.ok;
}

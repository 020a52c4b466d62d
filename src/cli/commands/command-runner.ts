import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { reportOf, type ErrorReport } from '../error-report.js';

/**
 * Runs a command's action with its context (global options resolved) and records the exit code it returns.
 *
 * @example
 * program.command('retry <sessionId>').action((sessionId: string, _options, command: Command) => run(command, (context) => retry(context, sessionId)));
 */
export type CommandRunner = (command: Command, action: (context: CommandContext) => Promise<number>) => Promise<void>;

/**
 * Run `work` on each item in turn, ticking the progress bar, and keep going past failures: each failure is kept
 * as its error report (code and payload-free message) next to the item.
 *
 * @example
 * const results = await eachWithProgress(context, ids, (id) => `abort ${id}`, (id) => context.backend().abort(id));
 */
export async function eachWithProgress<T, R>(
  context: CommandContext,
  items: readonly T[],
  label: (item: T) => string,
  work: (item: T) => Promise<R>,
): Promise<Array<{ item: T; value?: R; error?: ErrorReport }>> {
  const bar = context.progress(items.length);
  const results: Array<{ item: T; value?: R; error?: ErrorReport }> = [];
  try {
    for (const item of items) {
      try {
        results.push({ item, value: await work(item) });
      } catch (error) {
        results.push({ item, error: reportOf(error) });
      }
      bar.tick(label(item));
    }
  } finally {
    bar.finish();
  }
  return results;
}

/**
 * Values of a repeatable option (`--call a --call b`), collected by the argument parser.
 *
 * @example
 * program.option('--call <toolCallId>', 'a call', collect, []);
 */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

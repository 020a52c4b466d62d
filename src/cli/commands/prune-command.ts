import type { Command } from 'commander';
import type { PruneOutcome } from '../backend/operator-backend.js';
import type { CommandContext } from '../command-context.js';
import { parseDuration } from '../durations.js';
import { EXIT_CODES } from '../exit-codes.js';
import { integerOption } from '../list-query.js';
import { pruneText } from '../render/views.js';
import type { CommandRunner } from './command-runner.js';

interface PruneCommandOptions {
  olderThan: string;
  batchSize: string;
  dryRun?: boolean;
}

/**
 * Register `prune`: retention over the whole backlog of finished root sessions, batch after batch, with a progress
 * bar (direct mode: it deletes DBOS workflow records, which needs DBOS).
 *
 * @example
 * registerPruneCommand(program, run);
 */
export function registerPruneCommand(program: Command, run: CommandRunner): void {
  program
    .command('prune')
    .description('Delete stream chunks and DBOS workflow records of sessions finished longer ago than --older-than (messages, runs, checkpoints and usage stay).')
    .requiredOption('--older-than <duration>', 'finished at least this long ago: 90s, 12h, 30d, …')
    .option('--batch-size <n>', 'sessions per retention call, 1-1000', '25')
    .option('--dry-run', 'only count the sessions a prune would take now (at most 1000)')
    .action((options: PruneCommandOptions, command: Command) => run(command, (context) => prune(context, options)));
}

async function prune(context: CommandContext, options: PruneCommandOptions): Promise<number> {
  const olderThanMs = parseDuration(options.olderThan, '--older-than');
  const batchSize = integerOption(options.batchSize, '--batch-size', 1, 1_000);
  const backend = context.backend();
  const candidates = await backend.pruneCandidates(olderThanMs);
  if (options.dryRun === true) {
    const answer = { dryRun: true, sessions: candidates.length, sessionIds: candidates };
    context.print(answer, () => `Would prune ${candidates.length}${candidates.length === 1_000 ? '+' : ''} session(s).`);
    return EXIT_CODES.ok;
  }
  const bar = context.progress(candidates.length);
  const total: PruneOutcome = { sessions: 0, chunksDeleted: 0, workflowsDeleted: 0 };
  try {
    for (;;) {
      const batch = await backend.pruneBatch(olderThanMs, batchSize);
      total.sessions += batch.sessions;
      total.chunksDeleted += batch.chunksDeleted;
      total.workflowsDeleted += batch.workflowsDeleted;
      bar.grow(total.sessions);
      bar.tick('pruned', batch.sessions);
      if (batch.sessions < batchSize) break;
    }
  } finally {
    bar.finish();
  }
  context.print(total, () => pruneText(total));
  return EXIT_CODES.ok;
}

import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { CliUsageError } from '../cli-errors.js';
import { answerResultOf, approvalSubmission, clientResultOf, selectApprovals } from '../answers.js';
import type { CommandContext } from '../command-context.js';
import { bulkExitCode } from '../exit-codes.js';
import { reportOf } from '../error-report.js';
import { answersTable, type AnswerResult } from '../render/views.js';
import { collect, eachWithProgress, type CommandRunner } from './command-runner.js';

interface DecisionOptions {
  call?: string[];
  tool?: string;
  reason?: string;
}

/**
 * Register `approve`, `deny` and `submit`.
 *
 * @example
 * registerAnswerCommands(program, run);
 */
export function registerAnswerCommands(program: Command, run: CommandRunner): void {
  for (const [name, approved] of [['approve', true], ['deny', false]] as const) {
    program
      .command(name)
      .description(`${approved ? 'Approve' : 'Deny'} the open approvals of one or more sessions (all of them, or those named with --call / --tool).`)
      .argument('<sessionIds...>', 'the sessions (their root session ids)')
      .option('--call <toolCallId>', 'only this call (repeatable)', collect)
      .option('--tool <toolName>', 'only approvals of this tool')
      .option('--reason <text>', approved ? 'a note the model reads' : 'why (the model reads it)')
      .action((sessionIds: string[], options: DecisionOptions, command: Command) => run(command, (context) => decide(context, sessionIds, approved, options)));
  }

  program
    .command('submit')
    .description('Answer a client tool call with its result (or an error).')
    .argument('<sessionId>', 'the (root) session')
    .argument('<toolCallId>', 'the call')
    .option('--result <json>', 'the result, as JSON')
    .option('--result-file <path>', 'read the JSON result from a file (- for stdin)')
    .option('--error <message>', 'answer with an error instead')
    .action((sessionId: string, toolCallId: string, options: { result?: string; resultFile?: string; error?: string }, command: Command) =>
      run(command, async (context) => {
        const backend = context.backend();
        if (options.result !== undefined && options.resultFile !== undefined) throw new CliUsageError('--result and --result-file exclude each other.');
        const text = options.resultFile === undefined ? options.result : await readResultFile(options.resultFile);
        const answer = clientResultOf({ ...(text === undefined ? {} : { result: text }), ...(options.error === undefined ? {} : { error: options.error }) });
        let result: AnswerResult;
        try {
          result = answerResultOf(await backend.submit({ kind: 'client-tool-result', sessionId, toolCallId, ...answer }));
        } catch (error) {
          result = { sessionId, toolCallId, error: reportOf(error) };
        }
        return printAnswers(context, [result]);
      }),
    );
}

async function decide(context: CommandContext, sessionIds: readonly string[], approved: boolean, options: DecisionOptions): Promise<number> {
  const backend = context.backend();
  const failed: AnswerResult[] = [];
  const work: Array<{ sessionId: string; call: { toolCallId: string; approvalId: string } }> = [];
  for (const sessionId of sessionIds) {
    try {
      const calls = await backend.pendingCalls(sessionId, 1);
      const selected = selectApprovals(calls, {
        ...(options.call === undefined ? {} : { calls: options.call }),
        ...(options.tool === undefined ? {} : { tool: options.tool }),
      });
      if (selected.length === 0) failed.push({ sessionId, error: { code: 'CLI_NO_OPEN_CALLS', message: 'The session holds no open approval (of that tool).' } });
      work.push(...selected.map((call) => ({ sessionId, call })));
    } catch (error) {
      failed.push({ sessionId, error: reportOf(error) });
    }
  }
  const done = await eachWithProgress(
    context,
    work,
    (entry) => `${approved ? 'approve' : 'deny'} ${entry.sessionId}/${entry.call.toolCallId}`,
    async (entry) => answerResultOf(await backend.submit(approvalSubmission(entry.sessionId, entry.call, approved, options.reason))),
  );
  const results = [
    ...failed,
    ...done.map(
      (entry) =>
        entry.value ?? {
          sessionId: entry.item.sessionId,
          toolCallId: entry.item.call.toolCallId,
          ...(entry.error === undefined ? {} : { error: entry.error }),
        },
    ),
  ];
  return printAnswers(context, results);
}

function printAnswers(context: CommandContext, results: AnswerResult[]): number {
  context.print({ results }, () => answersTable(results));
  if (results.some((result) => result.next === 'needs_resume')) {
    context.note('A parked run waits for `helix-agents resume <sessionId> --server URL` (direct mode cannot run the agent).');
  }
  return bulkExitCode(results);
}

async function readResultFile(path: string): Promise<string> {
  try {
    return path === '-' ? await readStdin() : await readFile(path, 'utf8');
  } catch {
    throw new CliUsageError('--result-file could not be read (check the path and its permissions).');
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

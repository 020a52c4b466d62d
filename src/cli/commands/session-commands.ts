import type { Command } from 'commander';
import { EXIT_CODES } from '../exit-codes.js';
import { integerOption, limitOf, listQueryOf, type ListOptions } from '../list-query.js';
import { pendingTable, sessionDetailText, sessionsTable } from '../render/views.js';
import type { CommandRunner } from './command-runner.js';

/**
 * Register `sessions list|show|pending`.
 *
 * @example
 * registerSessionCommands(program, run);
 */
export function registerSessionCommands(program: Command, run: CommandRunner): void {
  const sessions = program.command('sessions').description('Look at sessions: list them, show one, list the calls waiting for a human.');

  sessions
    .command('list')
    .description('List top-level sessions, most recently updated first (server mode: needs the console API).')
    .option('--agent <agentType>', 'only sessions of this agent')
    .option('--status <statuses>', 'comma-separated: active, completed, failed, interrupted, paused')
    .option('--awaiting-human', 'only sessions waiting for a client tool result or an approval')
    .option('--no-awaiting-human', 'only sessions not waiting for a human')
    .option('--since <when>', 'updated since: a duration back from now (2h, 7d) or an ISO date')
    .option('--user <userId>', "only this user's sessions")
    .option('--anonymous', 'only sessions created without a user')
    .option('--include-children', 'sub-agent and companion sessions too')
    .option('--limit <n>', 'sessions per page, 1-500 (default 50)')
    .option('--cursor <cursor>', 'the next page (printed under the previous one)')
    .action((options: ListOptions, command: Command) =>
      run(command, async (context) => {
        const query = listQueryOf(options, context.io.now());
        const page = await context.backend().listSessions(query);
        context.print(page, () => sessionsTable(page, context.io.now()));
        return EXIT_CODES.ok;
      }),
    );

  sessions
    .command('show')
    .description('Show a session: status, runs, calls waiting for a human, sub-agents, last messages.')
    .argument('<sessionId>', 'the session')
    .option('--messages <n>', 'also the last n stored messages, 0-500 (direct mode)', '0')
    .action((sessionId: string, options: { messages: string }, command: Command) =>
      run(command, async (context) => {
        const messages = integerOption(options.messages, '--messages', 0, 500);
        const detail = await context.backend().showSession(sessionId, { messages });
        context.print(detail, () => sessionDetailText(detail, context.io.now()));
        return EXIT_CODES.ok;
      }),
    );

  sessions
    .command('pending')
    .description('List client tool calls and approvals no one has answered: of one session (and its sub-agents), or of every waiting session (server mode: needs the console API).')
    .argument('[sessionId]', 'the session (default: every session waiting for a human)')
    .option('--limit <n>', 'sessions scanned without a session id, 1-500 (default 50)')
    .action((sessionId: string | undefined, options: { limit?: string }, command: Command) =>
      run(command, async (context) => {
        const calls = await context.backend().pendingCalls(sessionId, limitOf(options.limit, 50));
        context.print({ calls }, () => pendingTable(calls, context.io.now()));
        return EXIT_CODES.ok;
      }),
    );
}

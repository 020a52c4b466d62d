import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { SiblingDatabase } from '../bench-database.js';
import { journalOf } from '../side-by-side/bench-system.js';
import { readTurnLine, turnLine, type TurnCommand, type TurnReply } from './turn-protocol.js';
import type { TurnSystemName } from './turn-system.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CHILD_SCRIPT = 'bench/turn-latency/turn-child.ts';
/** How long a child may take to shut its system down once told to exit. */
const EXIT_GRACE_MS = 15_000;

/**
 * A turn-latency child (turn-child.ts) running one system on its own database, asked one command at a time.
 *
 * @example
 * const langgraph = await TurnProcess.start(sibling, 'langgraph');
 * const reply = await langgraph.ask({ type: 'session', index: 1 }, 'session');
 */
export class TurnProcess {
  private readonly lines: AsyncIterator<string>;
  private stderr = '';
  private readonly exited: Promise<number | null>;

  private constructor(
    readonly system: TurnSystemName,
    private readonly child: ChildProcessWithoutNullStreams,
  ) {
    this.lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    child.stdin.on('error', () => undefined); // a child that died is reported by its exit, not by a failed write
    child.stderr.setEncoding('utf8').on('data', (piece: string) => (this.stderr = `${this.stderr}${piece}`.slice(-4_000)));
    this.exited = new Promise((done) => {
      child.on('close', (code) => done(code));
      child.on('error', (error) => {
        this.stderr = `${this.stderr}${error.message}`;
        done(null);
      });
    });
  }

  /**
   * Spawn the child for `system` on `database` (ours with its journal as `HELIX_JOURNAL`, so it holds from the
   * child's first import on) and wait until it is set up and warmed up.
   *
   * @throws Error when the child fails first (its stderr tail is in the message).
   * @example
   * const helix = await TurnProcess.start(sibling, 'helix');
   */
  static async start(database: SiblingDatabase, system: TurnSystemName): Promise<TurnProcess> {
    const journal = journalOf(system);
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD_SCRIPT, system], {
      cwd: ROOT,
      env: { ...process.env, BENCH_DATABASE_URL: database.url, ...(journal === undefined ? {} : { HELIX_JOURNAL: journal }) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const started = new TurnProcess(system, child);
    await started.reply('ready');
    return started;
  }

  /**
   * Send `command` and wait for its reply, which must be of type `type`.
   *
   * @throws Error when the child exits first or answers something else.
   * @example
   * const { burst } = await process.ask({ type: 'burst', size: 128 }, 'burst');
   */
  async ask<T extends TurnReply['type']>(command: TurnCommand, type: T): Promise<Extract<TurnReply, { type: T }>> {
    this.child.stdin.write(turnLine(command));
    return this.reply(type);
  }

  /**
   * Tell the child to exit and wait for it (killing it after a grace period); `failed` kills it at once.
   *
   * @example
   * await process.stop(false);
   */
  async stop(failed: boolean): Promise<void> {
    if (!failed && this.child.exitCode === null) this.child.stdin.write(turnLine({ type: 'exit' }));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((done) => (timer = setTimeout(() => done('timeout'), failed ? 0 : EXIT_GRACE_MS)));
    if ((await Promise.race([this.exited, timeout])) === 'timeout') this.child.kill('SIGKILL');
    clearTimeout(timer);
  }

  private async reply<T extends TurnReply['type']>(type: T): Promise<Extract<TurnReply, { type: T }>> {
    for (;;) {
      const next = await this.lines.next();
      if (next.done === true) throw new Error(`The "${this.system}" turn-latency child exited ${await this.exited}:\n${this.stderr.slice(-2_000)}`);
      const reply = readTurnLine<TurnReply>(next.value);
      if (reply === undefined) continue;
      if (reply.type !== type) throw new Error(`The "${this.system}" turn-latency child answered ${reply.type} instead of ${type}.`);
      return reply as Extract<TurnReply, { type: T }>;
    }
  }
}

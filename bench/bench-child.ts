import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = resolve(import.meta.dirname, '..');
/** How long a child may take to shut down once told to exit. */
const EXIT_GRACE_MS = 15_000;

/**
 * The line protocol of a bench child: JSON messages, one per line, after a prefix that sets them apart from any other
 * output of the child.
 *
 * @example
 * const protocol = new LineProtocol<TurnCommand | TurnReply>('TURN_LATENCY ');
 * child.stdin.write(protocol.line({ type: 'exit' }));
 */
export class LineProtocol<TMessage> {
  constructor(private readonly prefix: string) {}

  /** The line carrying `message`. */
  line(message: TMessage): string {
    return `${this.prefix}${JSON.stringify(message)}\n`;
  }

  /** The message a line carries, `undefined` for any other output. */
  read<T extends TMessage>(line: string): T | undefined {
    if (!line.startsWith(this.prefix)) return undefined;
    return JSON.parse(line.slice(this.prefix.length)) as T;
  }
}

/**
 * How to start a {@link BenchChild}: its script (from the repository root), arguments, environment, protocol, and the
 * name its errors use.
 *
 * @example
 * const options: BenchChildOptions<TurnCommand, TurnReply> = { name: 'the "helix" turn-latency child', script, env, protocol };
 */
export interface BenchChildOptions<TCommand, TReply> {
  name: string;
  script: string;
  args?: string[];
  /** Node options before the script (e.g. `--cpu-prof`). */
  nodeOptions?: string[];
  env: NodeJS.ProcessEnv;
  protocol: LineProtocol<TCommand | TReply>;
}

/**
 * A benchmark child process asked one command at a time over its line protocol (commands on stdin, replies on stdout),
 * with its stderr tail kept for the error when it dies.
 *
 * @example
 * const child = await BenchChild.start<TurnCommand, TurnReply>({ name, script, env, protocol });
 * const reply = await child.ask({ type: 'session', index: 1 }, 'session');
 * await child.stop(false);
 */
export class BenchChild<TCommand extends { type: string }, TReply extends { type: string }> {
  private readonly lines: AsyncIterator<string>;
  private stderr = '';
  private readonly exited: Promise<number | null>;

  private constructor(
    private readonly options: BenchChildOptions<TCommand, TReply>,
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
   * Spawn the child and wait for its `ready` reply (a child that fails first is killed).
   *
   * @throws Error when the child fails first (its stderr tail is in the message).
   */
  static async start<TCommand extends { type: string }, TReply extends { type: string }>(options: BenchChildOptions<TCommand, TReply>): Promise<BenchChild<TCommand, TReply>> {
    const child = spawn(process.execPath, [...(options.nodeOptions ?? []), '--import', 'tsx', options.script, ...(options.args ?? [])], {
      cwd: ROOT,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const started = new BenchChild<TCommand, TReply>(options, child);
    try {
      await started.reply('ready');
    } catch (error) {
      await started.stop(true);
      throw error;
    }
    return started;
  }

  /**
   * Send `command` and wait for its reply, which must be of type `type`.
   *
   * @throws Error when the child exits first or answers something else.
   */
  async ask<T extends TReply['type']>(command: TCommand, type: T): Promise<Extract<TReply, { type: T }>> {
    this.child.stdin.write(this.options.protocol.line(command));
    return this.reply(type);
  }

  /** Tell the child to exit and wait for it (killing it after a grace period); `failed` kills it at once. */
  async stop(failed: boolean): Promise<void> {
    if (!failed && this.child.exitCode === null) this.child.stdin.write(this.options.protocol.line({ type: 'exit' } as TCommand));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((done) => (timer = setTimeout(() => done('timeout'), failed ? 0 : EXIT_GRACE_MS)));
    if ((await Promise.race([this.exited, timeout])) === 'timeout') this.child.kill('SIGKILL');
    clearTimeout(timer);
  }

  private async reply<T extends TReply['type']>(type: T): Promise<Extract<TReply, { type: T }>> {
    const { name, protocol } = this.options;
    for (;;) {
      const next = await this.lines.next();
      if (next.done === true) throw new Error(`${name} exited ${await this.exited}:\n${this.stderr.slice(-2_000)}`);
      const reply = protocol.read<TReply>(next.value);
      if (reply === undefined) continue;
      if (reply.type !== type) throw new Error(`${name} answered ${reply.type} instead of ${type}.`);
      return reply as Extract<TReply, { type: T }>;
    }
  }
}

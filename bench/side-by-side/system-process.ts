import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { SiblingDatabase } from '../bench-database.js';
import { journalOf, type SystemName } from './bench-system.js';
import { formatProtocolLine, parseProtocolLine, type ChildCommand, type ChildReply } from './child-protocol.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CHILD_SCRIPT = 'bench/side-by-side/system-child.ts';

/**
 * A system running in its own child process on its own database, driven one command at a time.
 *
 * @example
 * const langgraph = await SystemProcess.start(sibling, 'langgraph');
 * const reply = await langgraph.request({ type: 'session', index: 1 });
 */
export class SystemProcess {
  private readonly replies: ChildReply[] = [];
  private waiter: { resolve: (reply: ChildReply) => void; reject: (error: Error) => void } | undefined;
  private stderr = '';
  private failure: Error | undefined;
  private readonly closed: Promise<void>;

  private constructor(
    readonly system: SystemName,
    private readonly child: ChildProcessWithoutNullStreams,
  ) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const reply = parseProtocolLine<ChildReply>(line);
      if (reply === undefined) return;
      if (this.waiter === undefined) this.replies.push(reply);
      else this.settle((waiter) => waiter.resolve(reply));
    });
    child.stderr.setEncoding('utf8').on('data', (piece: string) => (this.stderr = `${this.stderr}${piece}`.slice(-4_000)));
    this.closed = new Promise((resolve) => child.on('close', () => resolve()));
    child.on('close', (code) => this.fail(new Error(`The "${system}" benchmark child exited ${code}:\n${this.stderr.slice(-2_000)}`)));
    child.on('error', (error) => this.fail(error));
  }

  /**
   * Spawn the child for `system` on `database` and wait until it is set up and warmed up.
   *
   * @throws Error when the child fails first.
   * @example
   * const process = await SystemProcess.start(sibling, 'helix');
   */
  static async start(database: SiblingDatabase, system: SystemName): Promise<SystemProcess> {
    // HELIX_BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each child there (for finding where a step's time goes).
    const profile = process.env.HELIX_BENCH_CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.HELIX_BENCH_CPU_PROF}`];
    // Our systems' journal also reaches the child as HELIX_JOURNAL, so it holds from the child's first import on.
    const journal = journalOf(system);
    const child = spawn(process.execPath, [...profile, '--import', 'tsx', CHILD_SCRIPT, system], {
      cwd: ROOT,
      env: { ...process.env, BENCH_DATABASE_URL: database.url, ...(journal === undefined ? {} : { HELIX_JOURNAL: journal }) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const started = new SystemProcess(system, child);
    const ready = await started.nextReply();
    if (ready.type !== 'ready') throw new Error(`The "${system}" benchmark child answered ${ready.type} before it was ready.`);
    return started;
  }

  /**
   * Send a command and wait for its reply.
   *
   * @throws Error when the child exits or fails before replying.
   * @example
   * await process.request({ type: 'count-start' });
   */
  async request(command: ChildCommand): Promise<ChildReply> {
    this.child.stdin.write(formatProtocolLine(command));
    return this.nextReply();
  }

  /**
   * Wait up to `graceMs` for the child to exit (it does after its report), then kill it.
   *
   * @example
   * await process.stop(10_000);
   */
  async stop(graceMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), graceMs)));
    if ((await Promise.race([this.closed, timeout])) === 'timeout') this.child.kill('SIGKILL');
    clearTimeout(timer);
  }

  private nextReply(): Promise<ChildReply> {
    const queued = this.replies.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.settle((waiter) => waiter.reject(error));
  }

  private settle(action: (waiter: NonNullable<SystemProcess['waiter']>) => void): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter !== undefined) action(waiter);
  }
}

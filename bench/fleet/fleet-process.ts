import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fleetLine, readFleetLine, type FleetChildConfig, type FleetCommand, type FleetReply } from './fleet-protocol.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CHILD_SCRIPT = 'bench/fleet/fleet-child.ts';
/** How long a child may take to shut down once told to exit. */
const EXIT_GRACE_MS = 15_000;

/**
 * A fleet child (fleet-child.ts) in one role on one configuration's database, asked one command at a time.
 *
 * @example
 * const worker = await FleetProcess.start({ role: 'worker', databaseUrl, executorId: 'worker-1', pollingMs: 10 });
 * const { toolCalls } = await worker.ask({ type: 'counts', label: 'round-1' }, 'counts');
 */
export class FleetProcess {
  private readonly lines: AsyncIterator<string>;
  private stderr = '';
  private readonly exited: Promise<number | null>;

  private constructor(
    readonly config: FleetChildConfig,
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
   * Spawn a child with `config` and wait until it is set up (a worker: its queue registered).
   *
   * @throws Error when the child fails first (its stderr tail is in the message).
   * @example
   * const api = await FleetProcess.start({ role: 'api', databaseUrl, executorId: 'api' });
   */
  static async start(config: FleetChildConfig): Promise<FleetProcess> {
    // HELIX_BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each child there (named by pid; the child's role is in its config).
    const profile = process.env.HELIX_BENCH_CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.HELIX_BENCH_CPU_PROF}`];
    const child = spawn(process.execPath, [...profile, '--import', 'tsx', CHILD_SCRIPT], {
      cwd: ROOT,
      env: { ...process.env, FLEET_CHILD_CONFIG: JSON.stringify(config) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const started = new FleetProcess(config, child);
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
   * @example
   * const { outcomes } = await api.ask({ type: 'burst', label: 'round-1', sessions: 128 }, 'burst');
   */
  async ask<T extends FleetReply['type']>(command: FleetCommand, type: T): Promise<Extract<FleetReply, { type: T }>> {
    this.child.stdin.write(fleetLine(command));
    return this.reply(type);
  }

  /**
   * Tell the child to exit and wait for it (killing it after a grace period); `failed` kills it at once.
   *
   * @example
   * await worker.stop(false);
   */
  async stop(failed: boolean): Promise<void> {
    if (!failed && this.child.exitCode === null) this.child.stdin.write(fleetLine({ type: 'exit' }));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((done) => (timer = setTimeout(() => done('timeout'), failed ? 0 : EXIT_GRACE_MS)));
    if ((await Promise.race([this.exited, timeout])) === 'timeout') this.child.kill('SIGKILL');
    clearTimeout(timer);
  }

  private async reply<T extends FleetReply['type']>(type: T): Promise<Extract<FleetReply, { type: T }>> {
    const name = `${this.config.role} child ${this.config.executorId}`;
    for (;;) {
      const next = await this.lines.next();
      if (next.done === true) throw new Error(`The fleet ${name} exited ${await this.exited}:\n${this.stderr.slice(-2_000)}`);
      const reply = readFleetLine<FleetReply>(next.value);
      if (reply === undefined) continue;
      if (reply.type !== type) throw new Error(`The fleet ${name} answered ${reply.type} instead of ${type}.`);
      return reply as Extract<FleetReply, { type: T }>;
    }
  }
}

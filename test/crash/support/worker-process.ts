/**
 * Spawning, watching and SIGKILLing crash-drill workers (`node --import tsx agent-worker.ts`). Every wait
 * is bounded and fails with the worker's recent output; `killAll()` (from afterAll) ends every worker
 * still alive, whatever happened.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { WORKER_CONFIG_ENV, type WorkerConfig, type WorkerEvent } from '../worker/worker-config.js';

const REPOSITORY_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WORKER_SCRIPT = fileURLToPath(new URL('../worker/agent-worker.ts', import.meta.url));
/** Output kept for failure messages. */
const OUTPUT_TAIL_CHARS = 4_000;

type EventOf<E extends WorkerEvent['event']> = Extract<WorkerEvent, { event: E }>;

/**
 * One running (or finished) worker process.
 *
 * @example
 * const worker = workers.spawn('drill-1', { mode: 'recover', databaseUrl, openaiBaseUrl, sessions: ['s1'] });
 * const { result } = await worker.waitForEvent('result', 45_000);
 */
export class WorkerProcess {
  readonly events: WorkerEvent[] = [];
  private output = '';
  private pending = '';
  private exitCode: number | null | undefined;
  private readonly exited: Promise<void>;
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly label: string,
    private readonly child: ChildProcess,
  ) {
    child.stdout?.setEncoding('utf8').on('data', (text: string) => this.onStdout(text));
    child.stderr?.setEncoding('utf8').on('data', (text: string) => this.remember(text));
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitCode = code;
        this.remember(`\n[${label} exited: code ${String(code)}, signal ${String(signal)}]\n`);
        this.notify();
        resolve();
      });
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get alive(): boolean {
    return this.exitCode === undefined;
  }

  /** The first event of this kind (and matching `predicate`), waiting up to `timeoutMs`. Rejects if the worker fails or exits first. */
  async waitForEvent<E extends WorkerEvent['event']>(
    event: E,
    timeoutMs: number,
    predicate: (value: EventOf<E>) => boolean = () => true,
  ): Promise<EventOf<E>> {
    const find = (): EventOf<E> | undefined =>
      this.events.find((candidate): candidate is EventOf<E> => candidate.event === event && predicate(candidate as EventOf<E>));
    return this.waitUntil(() => find(), timeoutMs, `event "${event}"`);
  }

  /** Wait for the process to exit on its own; resolves its exit code. */
  async waitForExit(timeoutMs: number): Promise<number | null> {
    await this.waitUntil(() => (this.alive ? undefined : true), timeoutMs, 'exit', { allowExit: true });
    return this.exitCode ?? null;
  }

  /** SIGKILL the process and wait until it is gone. */
  async kill(): Promise<void> {
    if (this.alive) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** The last few thousand characters the worker printed (stdout and stderr). */
  describe(): string {
    return `--- ${this.label} (pid ${this.pid}) output ---\n${this.output.slice(-OUTPUT_TAIL_CHARS)}`;
  }

  private async waitUntil<T>(check: () => T | undefined, timeoutMs: number, what: string, options: { allowExit?: boolean } = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const evaluate = (): void => {
        const found = check();
        const failed = this.events.find((candidate): candidate is EventOf<'failed'> => candidate.event === 'failed');
        if (found !== undefined) finish(() => resolve(found));
        else if (failed !== undefined && options.allowExit !== true) finish(() => reject(new Error(`${this.label} failed (${failed.message}) before ${what}\n${this.describe()}`)));
        else if (!this.alive && options.allowExit !== true) finish(() => reject(new Error(`${this.label} exited before ${what}\n${this.describe()}`)));
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${this.label} ${what}\n${this.describe()}`))),
        timeoutMs,
      );
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        this.listeners.delete(evaluate);
        settle();
      };
      this.listeners.add(evaluate);
      evaluate();
    });
  }

  private onStdout(text: string): void {
    this.remember(text);
    this.pending += text;
    const lines = this.pending.split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{"event"')) continue;
      try {
        this.events.push(JSON.parse(line) as WorkerEvent);
      } catch {
        // A log line that merely looks like an event: kept in the output only.
      }
    }
    this.notify();
  }

  private remember(text: string): void {
    this.output = (this.output + text).slice(-OUTPUT_TAIL_CHARS * 2);
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/**
 * The workers of one test file.
 *
 * @example
 * const workers = new WorkerProcesses();
 * afterAll(() => workers.killAll());
 */
export class WorkerProcesses {
  private readonly all: WorkerProcess[] = [];

  /**
   * Start a worker. `executorId` becomes its DBOS executor id: a recover worker must reuse the crashed one's.
   * `script` runs another worker program with the same contract (default: agent-worker.ts).
   */
  spawn(label: string, executorId: string, config: WorkerConfig | object, script: string = WORKER_SCRIPT): WorkerProcess {
    const environment: NodeJS.ProcessEnv = { ...process.env, [WORKER_CONFIG_ENV]: JSON.stringify(config), DBOS__VMID: executorId };
    delete environment.NODE_OPTIONS;
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: REPOSITORY_ROOT,
      env: environment,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const worker = new WorkerProcess(label, child);
    this.all.push(worker);
    return worker;
  }

  /** SIGKILL every worker still alive. */
  async killAll(): Promise<void> {
    await Promise.all(this.all.map((worker) => worker.kill()));
  }
}

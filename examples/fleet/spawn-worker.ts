import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FLEET_DATABASE_URL_ENV } from './fleet-app.js';

const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WORKER_SCRIPT = fileURLToPath(new URL('./worker.ts', import.meta.url));
/** How long a worker may take to launch DBOS and register its queue, and to shut down. */
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

/**
 * A worker process of the fleet example, started by the API process.
 *
 * @example
 * const worker = await spawnFleetWorker(database.url);
 * // … enqueue runs, await their results …
 * await worker.stop(); // 0 after a clean shutdown
 */
export interface FleetWorker {
  readonly pid: number;
  /** Ask the worker to shut down (SIGTERM) and wait for it to exit; resolves its exit code. */
  stop(): Promise<number | null>;
}

/**
 * Spawn examples/fleet/worker.ts (`node --import tsx`, output to this terminal) on `databaseUrl` and wait until it
 * has registered the queue: before that, `execute()` would refuse to enqueue on a queue no process registered.
 *
 * @throws Error when the worker exits, or is not ready within 60 s.
 * @example
 * const worker = await spawnFleetWorker('postgres://postgres:postgres@127.0.0.1:5432/helix_demo');
 */
export async function spawnFleetWorker(databaseUrl: string): Promise<FleetWorker> {
  const environment: NodeJS.ProcessEnv = { ...process.env, [FLEET_DATABASE_URL_ENV]: databaseUrl };
  delete environment.NODE_OPTIONS; // the parent's loader flags (tsx, a test runner's) are not the worker's
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER_SCRIPT], {
    cwd: REPOSITORY_ROOT,
    env: environment,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await whenReady(child, exited);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    pid: child.pid ?? -1,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

async function whenReady(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ready = new Promise<void>((resolve) => child.on('message', (message) => message === 'ready' && resolve()));
  const failed = exited.then((code) => Promise.reject(new Error(`the fleet worker exited (code ${String(code)}) before it was ready`)));
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the fleet worker was not ready within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
  });
  try {
    await Promise.race([ready, failed, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Agent-server processes for the multi-process server tests (`server-process.ts` under `node --import tsx`):
 * spawn one on a database and a free loopback port, wait until it listens, SIGKILL or stop it. Every wait is
 * bounded and fails with the process's output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from '../../../support/free-port.js';

const SCRIPT = fileURLToPath(new URL('./server-process.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** What `server-process.ts` reads from `HELIX_SERVER_PROCESS`. */
export interface ServerProcessConfig {
  databaseUrl: string;
  /** Default: a free port. Pass the port of a killed process to bring "the same server" back. */
  port?: number;
  /** Serve the coordinator too, with remote tools calling this agent server. */
  remoteUrl?: string;
  /** The process ends itself after this long. Default 120 s. */
  lifetimeMs?: number;
}

/** One agent-server process. */
export interface ServerProcess {
  url: string;
  port: number;
  output(): string;
  /** SIGKILL, and wait until it is gone. */
  kill(): Promise<void>;
  /** SIGTERM (graceful), SIGKILL after 10 s. */
  stop(): Promise<void>;
}

/** Spawn `server-process.ts` with DBOS executor id `vmid` (a recovering process reuses the crashed one's) and wait until it listens. */
export async function spawnServerProcess(config: ServerProcessConfig, vmid: string): Promise<ServerProcess> {
  const port = config.port ?? (await freePort());
  const environment: NodeJS.ProcessEnv = { ...process.env, HELIX_SERVER_PROCESS: JSON.stringify({ ...config, port }), DBOS__VMID: vmid };
  delete environment.NODE_OPTIONS;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', SCRIPT], { cwd: ROOT, env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (output += text));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const alive = (): boolean => child.exitCode === null && child.signalCode === null;
  const end = async (signal: NodeJS.Signals, graceMs: number): Promise<void> => {
    if (!alive()) return;
    child.kill(signal);
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, graceMs))]);
    if (alive()) {
      child.kill('SIGKILL');
      await exited;
    }
  };
  await waitFor(async () => output.includes('"event":"listening"') || !alive(), 60_000, `server process ${vmid}\n${output}`);
  if (!alive()) throw new Error(`server process ${vmid} exited before listening\n${output}`);
  return { url: `http://127.0.0.1:${port}`, port, output: () => output, kill: () => end('SIGKILL', 10_000), stop: () => end('SIGTERM', 10_000) };
}

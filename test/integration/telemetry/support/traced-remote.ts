/**
 * The traced remote agent server of the remote trace tests: `traced-server-process.ts` on its own database (DBOS
 * executor id `remote-server`, so a process brought back on the same port recovers the killed one's runs), and the
 * spans it wrote to its span file. Spawned, awaited and stopped as `server-spawn.ts` does for the remote sub-agent tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from '../../../support/free-port.js';
import { createTestDatabase, type TestDatabase } from '../../../support/services.js';

const SCRIPT = fileURLToPath(new URL('./traced-server-process.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** One span as the remote process wrote it. */
export interface FileSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, string | number | boolean | string[] | undefined>;
}

/** The traced remote server: its URL, the spans it ended so far, kill and restart (same port, database and span file). */
export interface TracedRemote {
  url: string;
  spans(): FileSpan[];
  kill(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

interface Child {
  kill(signal: NodeJS.Signals): Promise<void>;
}

async function spawnTraced(database: TestDatabase, port: number, spanFile: string): Promise<Child> {
  const environment: NodeJS.ProcessEnv = {
    ...process.env,
    HELIX_SERVER_PROCESS: JSON.stringify({ databaseUrl: database.url, port, lifetimeMs: 300_000 }),
    HELIX_SPAN_FILE: spanFile,
    DBOS__VMID: 'remote-server',
  };
  delete environment.NODE_OPTIONS;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', SCRIPT], { cwd: ROOT, env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (output += text));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const alive = (): boolean => child.exitCode === null && child.signalCode === null;
  await waitFor(async () => output.includes('"event":"listening"') || !alive(), 60_000, `the traced remote server\n${output}`);
  if (!alive()) throw new Error(`the traced remote server exited before listening\n${output}`);
  return {
    kill: async (signal) => {
      if (!alive()) return;
      child.kill(signal);
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (alive()) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Start the traced remote server on a fresh database. */
export async function startTracedRemote(prefix: string): Promise<TracedRemote> {
  const database = await createTestDatabase(prefix);
  const port = await freePort();
  const spanFile = join(tmpdir(), `${prefix}-${process.pid}-spans.jsonl`);
  rmSync(spanFile, { force: true });
  let child = await spawnTraced(database, port, spanFile);
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => (existsSync(spanFile) ? readFileSync(spanFile, 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as FileSpan) : []),
    kill: () => child.kill('SIGKILL'),
    restart: async () => {
      child = await spawnTraced(database, port, spanFile);
    },
    close: async () => {
      await child.kill('SIGTERM');
      await database.drop();
      rmSync(spanFile, { force: true });
    },
  };
}

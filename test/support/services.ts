import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** A database created for one test file. */
export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Create a fresh, empty database on the test Postgres (one per test file). */
export async function createTestDatabase(prefix: string): Promise<TestDatabase> {
  return createDatabaseOn(inject('postgresUrl'), prefix);
}

/** Create a fresh database on the Postgres at `adminUrl`; the name is `prefix` plus a random suffix. */
export async function createDatabaseOn(adminUrl: string, prefix: string): Promise<TestDatabase> {
  const name = `${prefix.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 40)}_${randomBytes(4).toString('hex')}`;
  await withClient(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      await withClient(adminUrl, async (client) => {
        await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
        await client.query(`DROP DATABASE IF EXISTS "${name}"`);
      });
    },
  };
}

/** The test Redis URL. */
export function testRedisUrl(): string {
  return inject('redisUrl');
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

/**
 * Statements run as named prepared statements (planned once per connection). A migration that adds a column to a
 * table one of them reads with `*`, applied while the process runs (a rolling deploy), makes Postgres refuse that
 * statement ("cached plan must not change result type"; so does a column it names that changed type): it applied
 * nothing, and it runs again, prepared anew — the store's and the stream manager's callers never see the refusal.
 */
import knexPackage from 'knex';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStalePreparedPlan, preparedStatements } from '../../../src/database/named-statements.js';
import { transientPostgresCondition } from '../../../src/database/transient-postgres-error.js';
import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('stale_plan');
});
afterAll(async () => {
  await database?.drop();
});

describe('a prepared statement whose table gained a column meanwhile', () => {
  it('is refused once, as a transient condition that applied nothing, then prepared anew', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('CREATE TABLE widgets (id int PRIMARY KEY)');
      await client.query('INSERT INTO widgets VALUES (1)');
      const prepared = preparedStatements(client);
      expect((await prepared.query('SELECT * FROM widgets')).rows).toEqual([{ id: 1 }]);
      await client.query('ALTER TABLE widgets ADD COLUMN colour text');
      const refusal = await prepared.query('SELECT * FROM widgets').then(() => undefined, (error: unknown) => error);
      expect(isStalePreparedPlan(refusal)).toBe(true);
      expect(transientPostgresCondition(refusal)).toBe('StalePreparedPlan');
      expect((await prepared.query('SELECT * FROM widgets')).rows).toEqual([{ id: 1, colour: null }]);
    } finally {
      await client.end();
    }
  });

  it('the state store retries it: a read after the migration returns what the store holds', async () => {
    // One connection, so the second read lands where the first one prepared its statement.
    const knex = knexPackage.knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 1 } });
    const store = new PostgresStateStore({ knex });
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await store.migrate();
      await store.createSession('stale-1', { agentType: 'assistant', streamId: 'stale-1' });
      expect(await store.getRun('stale-1', 'run-missing')).toBeNull();
      await admin.query('ALTER TABLE __agents_runs ADD COLUMN added_by_v2 text');
      expect(await store.getRun('stale-1', 'run-missing')).toBeNull();
      expect((await store.loadState('stale-1'))?.agentType).toBe('assistant');
    } finally {
      await admin.end();
      await store.close();
      await knex.destroy();
    }
  });

  it('the stream manager retries it (a column it names changed type)', async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    const streams = new PostgresStreamManager({ pool });
    try {
      await streams.migrate();
      await streams.createWriter('stale-stream', 'agent', 'assistant').then((writer) => writer.close());
      expect((await streams.getInfo('stale-stream'))?.status).toBeDefined();
      await pool.query('ALTER TABLE __agents_streams ALTER COLUMN error TYPE varchar(100000)');
      expect((await streams.getInfo('stale-stream'))?.status).toBeDefined();
    } finally {
      await streams.close();
      await pool.end();
    }
  });
});

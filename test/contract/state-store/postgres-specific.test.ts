import { readdirSync } from 'node:fs';
import knexPackage from 'knex';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StoreError } from '../../../src/errors/index.js';
import type { Message } from '../../../src/types/message.js';
import { PostgresStateStore, runMigrations } from '../../../src/store/index.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

/** Every migration file of the package, in apply order. */
const MIGRATIONS = readdirSync(new URL('../../../schema/', import.meta.url)).filter((name) => /^\d{3}_[a-z0-9_]+\.sql$/.test(name)).sort();

let database: TestDatabase;
let admin: pg.Client;
beforeAll(async () => {
  database = await createTestDatabase('state_store_postgres');
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await database.drop();
});

async function columnsOf(schema: string, table: string): Promise<string[]> {
  const result = await admin.query<{ column_name: string }>(
    'SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position',
    [schema, table],
  );
  return result.rows.map((row) => row.column_name);
}

describe('PostgresStateStore migrations', () => {
  it('creates the schema and every table; a second migrate() is a no-op', async () => {
    const store = new PostgresStateStore({ connectionString: database.url }, { schema: 'twice' });
    try {
      expect(MIGRATIONS[0]).toBe('001_initial.sql');
      expect(await store.migrate()).toEqual({ applied: MIGRATIONS });
      expect(await store.migrate()).toEqual({ applied: [] });
      const tables = await admin.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'twice' ORDER BY table_name",
      );
      expect(tables.rows.map((row) => row.table_name)).toEqual([
        '__agents_checkpoints',
        '__agents_messages',
        '__agents_migrations',
        '__agents_model_calls',
        '__agents_runs',
        '__agents_sessions',
        '__agents_staging',
        '__agents_stream_chunks',
        '__agents_streams',
        '__agents_sub_session_refs',
        '__agents_usage',
      ]);
      expect(await columnsOf('twice', '__agents_streams')).toEqual(['stream_id', 'status', 'last_sequence', 'output', 'error', 'created_at', 'updated_at', 'agent_type']);
      expect(await columnsOf('twice', '__agents_stream_chunks')).toEqual(['stream_id', 'sequence', 'step', 'chunk', 'key_hash']);
      expect(await columnsOf('twice', '__agents_usage')).toEqual(
        expect.arrayContaining(['session_id', 'run_id', 'kind', 'name', 'input_tokens', 'output_tokens', 'total_tokens', 'duration_ms', 'success', 'created_at']),
      );
      const recorded = await admin.query<{ name: string }>('SELECT name FROM twice.__agents_migrations ORDER BY name');
      expect(recorded.rows.map((row) => row.name)).toEqual(MIGRATIONS);
    } finally {
      await store.close();
    }
  });

  it('two concurrent migrate() calls on a fresh schema both succeed and apply each file once', async () => {
    const first = new PostgresStateStore({ connectionString: database.url }, { schema: 'concurrent' });
    const second = new PostgresStateStore({ connectionString: database.url }, { schema: 'concurrent' });
    try {
      const results = await Promise.all([first.migrate(), second.migrate()]);
      expect(results.map((result) => result.applied.length).sort()).toEqual([0, MIGRATIONS.length]);
      await first.createSession('after-migrate', { agentType: 'a' });
      expect(await second.sessionExists('after-migrate')).toBe(true);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('runMigrations accepts a pg Client and a pg Pool', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const pool = new pg.Pool({ connectionString: database.url });
    try {
      expect(await runMigrations(client, 'via_client')).toEqual({ applied: MIGRATIONS });
      expect(await runMigrations(pool, 'via_client')).toEqual({ applied: [] });
      expect(await columnsOf('via_client', '__agents_sessions')).toContain('custom_state');
    } finally {
      await client.end();
      await pool.end();
    }
  });
});

describe('PostgresStateStore message ids (migration 010: a hash exclusion constraint)', () => {
  it('stay unique per session, may repeat across sessions, and a retried append finds the stored ones', async () => {
    const store = new PostgresStateStore({ connectionString: database.url }, { schema: 'message_ids' });
    try {
      await store.migrate();
      for (const sessionId of ['m1', 'm2']) await store.createSession(sessionId, { agentType: 'a' });
      const messages: Message[] = [
        { id: 'run-x:1:0', role: 'user', content: 'Hi' },
        { id: 'run-x:1:1', role: 'assistant', content: 'Hello' },
      ];
      expect(await store.appendMessages('m1', messages)).toBe(2);
      // A retried append of the same ids (and one new message) adds only the new one.
      expect(await store.appendMessages('m1', [...messages, { id: 'run-x:2:0', role: 'user', content: 'Again' }])).toBe(3);
      expect(await store.appendMessages('m2', messages)).toBe(2);
      expect((await store.getMessages('m1')).messages.map((message) => message.id)).toEqual(['run-x:1:0', 'run-x:1:1', 'run-x:2:0']);
      // The database refuses a duplicate id in a session even past the store's own check.
      const duplicate = admin.query(
        `INSERT INTO message_ids.__agents_messages (session_id, sequence, message_id, message, created_at) VALUES ('m1', 4, 'run-x:1:0', '{}', 0)`,
      );
      await expect(duplicate).rejects.toMatchObject({ code: '23P01', constraint: '__agents_messages_id_unique' });
    } finally {
      await store.close();
    }
  });
});

describe('stream chunk keys (migration 011: a hash exclusion constraint)', () => {
  it('stay unique per stream and may repeat across streams', async () => {
    const store = new PostgresStateStore({ connectionString: database.url }, { schema: 'chunk_keys' });
    try {
      await store.migrate();
      const insert = (streamId: string, sequence: number) =>
        admin.query(`INSERT INTO chunk_keys.__agents_stream_chunks (stream_id, sequence, step, chunk, key_hash) VALUES ($1, $2, 1, '{}', md5('k')::uuid)`, [
          streamId,
          sequence,
        ]);
      await insert('a', 1);
      await insert('b', 1);
      await expect(insert('a', 2)).rejects.toMatchObject({ code: '23P01', constraint: '__agents_stream_chunks_key_unique' });
    } finally {
      await store.close();
    }
  });
});

describe('PostgresStateStore failures', () => {
  it('rolls back a step commit that fails inside Postgres after earlier statements ran', async () => {
    const store = new PostgresStateStore({ connectionString: database.url }, { schema: 'rollback' });
    try {
      await store.migrate();
      await store.createSession('s', { agentType: 'a', customState: { n: 0 } });
      await store.stageChanges('s', { stepId: 'r1:1', stagingKey: 'k', patches: [{ op: 'replace', path: '/n', value: 1 }] });
      // A constraint refuses the message, so the final INSERT (messages) fails after the session UPDATE, the staging
      // DELETE and the checkpoint INSERT already ran in the transaction.
      await admin.query(`ALTER TABLE rollback.__agents_messages ADD CONSTRAINT refuse_payload CHECK (message NOT LIKE '%payload%')`);
      const error = await store
        .saveStateAndPromoteStaging('s', { stepCount: 1 }, [{ role: 'user', content: 'secret payload' }], { checkpointId: 'r1:1', runId: 'r1', stepCount: 1 })
        .catch((caught: unknown) => caught);
      expect(StoreError.isInstance(error)).toBe(true);
      expect((error as Error).message).not.toContain('secret');
      expect(await store.loadState('s')).toMatchObject({ version: 1, customState: { n: 0 }, stepCount: 0 });
      expect(await store.listCheckpoints('s')).toEqual([]);
      expect(await store.getMessageCount('s')).toBe(0);
      expect(await store.hasStagedChanges('s', 'r1:1')).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('reports missing tables as a StoreError that says to migrate', async () => {
    const store = new PostgresStateStore({ connectionString: database.url }, { schema: 'never_migrated' });
    try {
      const error = await store.loadState('s').catch((caught: unknown) => caught);
      expect(StoreError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain('migrate()');
    } finally {
      await store.close();
    }
  });

  it('close() leaves a knex instance it did not create open', async () => {
    const knex = knexPackage.knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 2 } });
    const store = new PostgresStateStore({ knex }, { schema: 'shared_knex' });
    try {
      await store.migrate();
      await store.close();
      await store.close();
      const result = await knex.raw<{ rows: unknown[] }>('SELECT 1 AS one');
      expect(result.rows).toEqual([{ one: 1 }]);
    } finally {
      await knex.destroy();
    }
  });
});

describe('PostgresStateStore statement budget', () => {
  it("commits the next step of a session it committed last in ONE statement (no transaction, no read); a write since makes it read", async () => {
    const store = new PostgresStateStore({ connectionString: database.url }, { schema: 'optimistic_alone' });
    const spy = vi.spyOn(pg.Client.prototype, 'query');
    const commit = async (step: number): Promise<number> => {
      spy.mockClear();
      const meta = { checkpointId: `r1:${step}`, runId: 'r1', stepCount: step };
      await store.saveStateAndPromoteStaging('alone', { stepCount: step }, [{ id: `r1:${step}:0`, role: 'assistant', content: `s${step}` }], meta);
      return spy.mock.calls.length;
    };
    try {
      await store.migrate();
      await store.createSession('alone', { agentType: 'a', customState: { n: 0 } });
      expect(await commit(1)).toBe(4); // nothing known: BEGIN, the locked read, the write, COMMIT
      expect(await commit(2)).toBe(1); // known: the guarded write alone
      expect(await commit(3)).toBe(1);
      await store.appendMessages('alone', [{ id: 'u1', role: 'user', content: 'meanwhile' }]);
      expect(await commit(4)).toBe(5); // the guard failed (one statement), then read under the lock
      expect(await commit(5)).toBe(1);
      // A step whose commit is durable, committed again (a re-run step): found, nothing written twice.
      expect(await commit(5)).toBeGreaterThan(1);
      const { messages } = await store.getMessages('alone', { limit: 100 });
      expect(messages.map((message) => message.content)).toEqual(['s1', 's2', 's3', 'meanwhile', 's4', 's5']);
      expect((await store.loadState('alone'))?.checkpointId).toBe('r1:5');
    } finally {
      spy.mockRestore();
      await store.close();
    }
  });

  it('commits a step with the same number of statements whatever the history length', async () => {
    const store = new PostgresStateStore({ connectionString: database.url }, { schema: 'budget' });
    const spy = vi.spyOn(pg.Client.prototype, 'query');
    try {
      await store.migrate();
      const statementsToCommit = async (sessionId: string, history: number): Promise<number> => {
        await store.createSession(sessionId, { agentType: 'a', customState: { n: 0 } });
        const messages: Message[] = Array.from({ length: history }, (_, index) => ({ id: `h${index}`, role: 'user', content: `m${index}` }));
        await store.appendMessages(sessionId, messages);
        await store.stageChanges(sessionId, { stepId: 'r1:1', stagingKey: 'k', patches: [{ op: 'replace', path: '/n', value: 1 }] });
        spy.mockClear();
        await store.saveStateAndPromoteStaging(sessionId, { stepCount: 1 }, [{ id: 'r1:1:0', role: 'assistant', content: 'ok' }], { checkpointId: 'r1:1', runId: 'r1', stepCount: 1 });
        return spy.mock.calls.length;
      };
      const short = await statementsToCommit('short', 2);
      const long = await statementsToCommit('long', 400);
      expect(long).toBe(short);
      // BEGIN, one read (the lock with the checkpoint lookup, staged rows, existing ids), one write (UPDATE, DELETE, INSERT ×2), COMMIT.
      expect(short).toBe(4);
    } finally {
      spy.mockRestore();
      await store.close();
    }
  });
});

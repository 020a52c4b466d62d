import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeReadingTransactionId, GuardedAttemptFailed, pipelinedTransaction } from '../../../src/journal/pipelined-transaction.js';
import { isDeferring } from '../../../src/store/postgres/statement-batch.js';
import type { RecordWrite } from '../../../src/journal/step-record.js';
import { createTestDatabase } from '../../support/services.js';
import type { TestDatabase } from '../../support/databases.js';

let database: TestDatabase;
let client: pg.Client;
beforeAll(async () => {
  database = await createTestDatabase('held_writes');
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query('CREATE TABLE held_rows (id text PRIMARY KEY, n integer NOT NULL)');
  await client.query("INSERT INTO held_rows VALUES ('a', 0)");
});
afterAll(async () => {
  await client?.end();
  await database?.drop();
});

/** A write that holds a guarded batch (the row must exist) and then reads, as a finish does after its step commit. */
function holdThenRead(id: string, seen: { readSentBeforeHeldAnswer?: boolean }): RecordWrite {
  return {
    within: async (connection) => {
      if (!isDeferring(connection)) throw new Error('the record connection defers writes');
      await connection.deferWrites(['UPDATE held_rows SET n = n + 1 WHERE id = $1 RETURNING 1'], [id], { guards: [0] });
      let heldAnswered = false;
      const query = client.query.bind(client);
      // The held batch is the next query to leave; note whether the read leaves before its answer came.
      const spy = (config: unknown, values?: unknown) => {
        const answer = query(config as never, values as never) as unknown as Promise<unknown>;
        if (!heldAnswered && String((config as { text?: string }).text ?? config).includes('held0')) {
          void answer.then(() => (heldAnswered = true), () => (heldAnswered = true));
        } else if (seen.readSentBeforeHeldAnswer === undefined) seen.readSentBeforeHeldAnswer = !heldAnswered;
        return answer;
      };
      Reflect.set(client, 'query', spy);
      try {
        await connection.query('SELECT n FROM held_rows WHERE id = $1', ['a']);
      } finally {
        Reflect.deleteProperty(client, 'query');
      }
    },
  };
}

describe('a pipelined record transaction holding a write batch', () => {
  it('sends the held batch ahead of the next statement, in order, and commits both', async () => {
    const seen: { readSentBeforeHeldAnswer?: boolean } = {};
    await pipelinedTransaction(client, [holdThenRead('a', seen)], { closing: closeReadingTransactionId });
    expect(seen.readSentBeforeHeldAnswer).toBe(true);
    expect((await client.query('SELECT n FROM held_rows WHERE id = $1', ['a'])).rows[0]?.n).toBe(1);
  });

  it("reports a held batch's failed guard as the attempt's failure (retried by its caller), committing nothing", async () => {
    const before = (await client.query('SELECT n FROM held_rows WHERE id = $1', ['a'])).rows[0]?.n;
    const refusal = pipelinedTransaction(client, [holdThenRead('missing', {})], { closing: closeReadingTransactionId });
    await expect(refusal).rejects.toBeInstanceOf(GuardedAttemptFailed);
    await expect(refusal).rejects.toMatchObject({ cause: { code: '22012' } });
    expect((await client.query('SELECT n FROM held_rows WHERE id = $1', ['a'])).rows[0]?.n).toBe(before);
  });
});

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BufferedStreamWriter } from '../../../src/stream/buffered-stream-writer.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import type { StreamChunk, StreamChunkInput } from '../../../src/types/stream.js';
import { readStream } from '../../support/read-stream.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

// Issue 25 (time to first token): a run's first delta is appended lazily (its commit does not wait for its WAL flush),
// and the writer's next append that is not lazy carries it again, so a Postgres crash that lost the lazy append loses
// nothing once that append commits: the chunk is stored again at the sequence readers saw it at.

let database: TestDatabase;
let pool: pg.Pool;
let transactions: pg.Pool;
let streams: PostgresStreamManager;
/** Every statement the manager sent on its pool: its text and values. */
const sent: Array<{ text: string; values: unknown[] }> = [];

beforeAll(async () => {
  database = await createTestDatabase('stream_lazy');
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  const query = pool.query.bind(pool) as (...values: unknown[]) => unknown;
  Reflect.set(pool, 'query', (...values: unknown[]) => {
    const config = values[0] as { text?: unknown; values?: unknown[] } | string;
    if (typeof config === 'object' && typeof config.text === 'string') sent.push({ text: config.text, values: config.values ?? [] });
    return query(...values);
  });
  streams = new PostgresStreamManager({ pool }, { flushIntervalMs: 60_000, pollIntervalMs: 60_000 });
  await streams.migrate();
  transactions = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  await streams?.close();
  await Promise.all([pool?.end(), transactions?.end()]);
  await database?.drop();
});

const text = (delta: string): StreamChunkInput => ({
  type: 'text_delta',
  delta,
  agentId: 'agent',
  agentType: 'assistant',
  step: 1,
  timestamp: 5,
});
const deltas = (chunks: StreamChunk[]): Array<[number, string]> =>
  chunks.map((chunk) => [chunk.sequence, chunk.type === 'text_delta' ? chunk.delta : chunk.type]);

/** A writer of a new stream with `a` appended lazily (sequence 1), and what the stream held right after. */
async function lazilyWritten(streamId: string): Promise<{ writer: BufferedStreamWriter; first: StreamChunk[] }> {
  const writer = await streams.createWriter(streamId, 'agent', 'assistant');
  if (!(writer instanceof BufferedStreamWriter)) throw new Error('the Postgres manager hands out buffered writers');
  await writer.write(text('a'), { key: `${streamId}:a` });
  await writer.flushLazily();
  const reader = await streams.createReader(streamId);
  const first = (await reader[Symbol.asyncIterator]().next()).value as StreamChunk;
  await reader.close();
  return { writer, first: [first] };
}

/** What a Postgres crash leaves when it lost the lazy append of `streamId`'s last chunk: the row gone, the sequence back. */
async function loseLastAppend(streamId: string): Promise<void> {
  const last = 'SELECT last_sequence FROM __agents_streams WHERE stream_id = $1';
  await pool.query(`DELETE FROM __agents_stream_chunks WHERE stream_id = $1 AND sequence = (${last})`, [streamId]);
  await pool.query('UPDATE __agents_streams SET last_sequence = last_sequence - 1 WHERE stream_id = $1', [streamId]);
}

describe('PostgresStreamManager: a lazy append', () => {
  it('turns synchronous commit off for its own transaction only (a plain append does not)', async () => {
    await lazilyWritten('lazy-setting');
    const lazy = sent.find((statement) => statement.text.includes('set_config') && statement.values[0] === 'lazy-setting');
    const isAppend = (statement: { text: string }): boolean => statement.text.includes('INSERT INTO') && statement.text.includes('reserved');
    const plain = sent.find((statement) => isAppend(statement) && !statement.text.includes('set_config'));
    expect(lazy, 'the lazy append was sent').toBeDefined();
    const client = await transactions.connect();
    try {
      // The test server commits asynchronously throughout (speed): this session does not.
      await client.query('SET synchronous_commit = on');
      const settingAfter = async (statement: { text: string; values: unknown[] }, streamId: string): Promise<string> => {
        await client.query('BEGIN');
        // A fresh key and stream: the statement stores a row, as it did.
        const values = [streamId, ...statement.values.slice(1)];
        values[3] = [`${streamId}:again`];
        await client.query(statement.text, values);
        const setting = (await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]?.synchronous_commit ?? '';
        await client.query('ROLLBACK');
        return setting;
      };
      expect(await settingAfter(lazy!, 'lazy-setting-2')).toBe('off');
      if (plain !== undefined) expect(await settingAfter(plain, 'lazy-setting-3')).toBe('on');
      expect((await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]?.synchronous_commit).toBe('on');
    } finally {
      client.release();
    }
  });

  it.each([
    { lost: false, case: 'held by the stream: skipped by its key' },
    { lost: true, case: 'lost by a Postgres crash: stored again at the sequence readers saw' },
  ])('is carried again by the next flush, $case', async ({ lost }) => {
    const streamId = `lazy-flush-${lost}`;
    const { writer, first } = await lazilyWritten(streamId);
    expect(deltas(first)).toEqual([[1, 'a']]);
    if (lost) await loseLastAppend(streamId);
    await writer.write(text('b'), { key: `${streamId}:b` });
    await writer.flush();
    await streams.endStream(streamId);
    expect(deltas(await readStream(streams, streamId))).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
  });

  const recordCases = [{ lost: false }, { lost: true }];
  it.each(recordCases)('is carried again by a step record’s hand-over (lost: $lost), read by a reader that saw it', async ({ lost }) => {
    const streamId = `lazy-record-${lost}`;
    const { writer } = await lazilyWritten(streamId);
    const reader = await streams.createReader(streamId);
    const iterator = reader[Symbol.asyncIterator]();
    const seen = [(await iterator.next()).value as StreamChunk];
    if (lost) await loseLastAppend(streamId);
    const written = writer.write(text('b'), { key: `${streamId}:b` });
    const handover = await streams.stepRecords.handOver(writer, { neverRewritten: true });
    await written;
    const client = await transactions.connect();
    try {
      await client.query('BEGIN');
      await handover!.within(client);
      const ended = await streams.stepRecords.endStreamOn(client, streamId, { done: true });
      await client.query('COMMIT');
      handover!.committed?.();
      ended.onCommitted();
    } finally {
      client.release();
    }
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) seen.push(next.value);
    expect(deltas(seen)).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
    expect(deltas(await readStream(streams, streamId))).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
    const statements = sent.length;
    await writer.flush();
    expect(sent.length, 'the lazy chunk is stored for good: nothing left to carry').toBe(statements);
  });
});

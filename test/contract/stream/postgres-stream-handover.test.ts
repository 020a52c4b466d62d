import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import type { ChunkHandover } from '../../../src/stream/step-records.js';
import type { StreamReader, StreamWriter } from '../../../src/stream/stream-manager.js';
import type { StreamChunk, StreamChunkInput } from '../../../src/types/stream.js';
import { readStream } from '../../support/read-stream.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

// Issue 25 (time to first token): chunks a step record commits go straight to this process's readers of the stream
// that expect exactly them, without the reader's chunk SELECT; anything else (a gap, a row read from a checkpoint, a
// rolled-back append) is read from the database as before, and a reader yields what the database holds, byte for byte.

let database: TestDatabase;
let pool: pg.Pool;
let transactions: pg.Pool;
let streams: PostgresStreamManager;
let elsewhere: PostgresStreamManager;
let reads = 0;

beforeAll(async () => {
  database = await createTestDatabase('stream_handover');
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  const query = pool.query.bind(pool) as (...values: unknown[]) => unknown;
  // Counts the readers' chunk statements (`PostgresStreamStatements.read`).
  Reflect.set(pool, 'query', (...values: unknown[]) => {
    // A statement's text, or its config's (statements run named: `{ name, text, values }`).
    const text = typeof values[0] === 'string' ? values[0] : (values[0] as { text?: unknown } | undefined)?.text;
    if (typeof text === 'string' && text.startsWith('SELECT s.status, s.agent_type, c.sequence')) reads += 1;
    return query(...values);
  });
  // No timer flush and no poll: every chunk is handed over or flushed here, every reader woken by a write.
  streams = new PostgresStreamManager({ pool }, { flushIntervalMs: 60_000, pollIntervalMs: 60_000 });
  await streams.migrate();
  elsewhere = new PostgresStreamManager({ connectionString: database.url }, { flushIntervalMs: 60_000 });
  transactions = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  await streams?.close();
  await elsewhere?.close();
  await Promise.all([pool?.end(), transactions?.end()]);
  await database?.drop();
});

const base = { agentId: 'agent', agentType: 'assistant', step: 1, timestamp: 5 };
const text = (delta: string, more: Partial<StreamChunkInput> = {}): StreamChunkInput => ({ type: 'text_delta', delta, ...base, ...more }) as StreamChunkInput;
const toolStart: StreamChunkInput = { type: 'tool_start', toolCallId: 'c1', toolName: 'lookup', arguments: { q: 'x' }, ...base, step: 2 };
const toolEnd: StreamChunkInput = { type: 'tool_end', toolCallId: 'c1', toolName: 'lookup', result: { found: 'X' }, ...base, step: 2, timestamp: 6 };

/** Write `chunks` and hand them over in the same tick (as a step record does). */
async function handOver(writer: StreamWriter, chunks: { chunk: StreamChunkInput; patchesIn?: string }[]): Promise<ChunkHandover> {
  const writes = chunks.map(({ chunk, patchesIn }, index) => {
    const key = `k:${Math.random()}:${index}`;
    return writer.write(chunk, patchesIn === undefined ? { key } : { key, patchesIn });
  });
  const handing = streams.stepRecords.handOver(writer, { neverRewritten: true });
  await Promise.all(writes);
  const handover = await handing;
  if (handover === undefined) throw new Error('nothing handed over');
  return handover;
}

/** Append `handover` in a transaction that commits (or rolls back), ending the stream there too when asked. */
async function record(handover: ChunkHandover, outcome: 'COMMIT' | 'ROLLBACK', endStream?: string): Promise<void> {
  const client = await transactions.connect();
  try {
    await client.query('BEGIN');
    await handover.within(client);
    const ended = endStream === undefined ? undefined : await streams.stepRecords.endStreamOn(client, endStream, { done: true });
    await client.query(outcome);
    if (outcome === 'COMMIT') {
      handover.committed?.();
      ended?.onCommitted();
    }
  } finally {
    client.release();
  }
}

/** A reader of `streamId` that has yielded its first chunk and waits for the next (its read done). */
async function waitingReader(streamId: string): Promise<{ reader: StreamReader; pending: Promise<IteratorResult<StreamChunk>> }> {
  const reader = await streams.createReader(streamId);
  const iterator = reader[Symbol.asyncIterator]();
  expect((await iterator.next()).done).toBe(false);
  const pending = iterator.next();
  await new Promise((resolve) => setTimeout(resolve, 100));
  return { reader, pending };
}

/** `count` more chunks of `reader`, after `first`. */
async function following(reader: StreamReader, first: Promise<IteratorResult<StreamChunk>>, count: number): Promise<StreamChunk[]> {
  const iterator = reader[Symbol.asyncIterator]();
  const chunks = [(await first).value as StreamChunk];
  for (let index = 1; index < count; index += 1) chunks.push((await iterator.next()).value as StreamChunk);
  return chunks;
}

/** Every chunk of the ended stream, as the database gives them, as JSON text (member order included). */
async function stored(streamId: string): Promise<string[]> {
  return (await readStream(elsewhere, streamId)).map((chunk) => JSON.stringify(chunk));
}

describe('chunks a step record commits, handed to this process’s readers (PostgresStreamManager)', () => {
  it('reach a reader that expects them without its chunk statement, as the database holds them (a tool call’s pair row too)', async () => {
    const writer = await streams.createWriter('h-1', 'agent', 'assistant');
    await writer.write(text('a'));
    await writer.flush();
    const { reader, pending } = await waitingReader('h-1');
    const before = reads;
    const subAgentText = text('c', { agentId: 'sub', agentType: 'researcher' });
    const chunks = [{ chunk: text('b') }, { chunk: subAgentText }, { chunk: toolStart }, { chunk: toolEnd }];
    await record(await handOver(writer, chunks), 'COMMIT');
    const handed = await following(reader, pending, 4);
    expect(reads, 'no chunk statement').toBe(before);
    await streams.endStream('h-1');
    expect(handed.map((chunk) => JSON.stringify(chunk))).toEqual((await stored('h-1')).slice(1));
    expect(handed.map((chunk) => chunk.sequence)).toEqual([2, 3, 4, 5]);
    await reader.close();
    await writer.close();
  });

  it('put back the writer’s agent type the append put back (the stream records another)', async () => {
    const own = await streams.createWriter('h-2', 'h-2', 'planner');
    await own.write(text('a', { agentId: 'h-2', agentType: 'planner' }));
    await own.flush();
    const child = await streams.createWriter('h-2', 'child', 'researcher');
    const { reader, pending } = await waitingReader('h-2');
    const before = reads;
    await record(await handOver(child, [{ chunk: text('b', { agentId: 'child', agentType: 'researcher' }) }]), 'COMMIT');
    const [handed] = await following(reader, pending, 1);
    expect(reads).toBe(before);
    await streams.endStream('h-2');
    expect(JSON.stringify(handed)).toBe((await stored('h-2'))[1]);
    await Promise.all([reader.close(), own.close(), child.close()]);
  });

  it('hand over the rows before one that refers to its checkpoint; that row and the rest are read', async () => {
    const writer = await streams.createWriter('h-3', 'agent', 'assistant');
    await writer.write(text('a'));
    await writer.flush();
    const { reader, pending } = await waitingReader('h-3');
    const before = reads;
    const patch: StreamChunkInput = { type: 'state_patch', patches: [{ op: 'add', path: '/n', value: 1 }], ...base, step: 2 };
    await record(await handOver(writer, [{ chunk: text('b') }, { chunk: patch, patchesIn: 'no-such-checkpoint' }, { chunk: toolEnd }]), 'COMMIT');
    const [first] = await following(reader, pending, 1);
    expect(reads, 'the first row handed').toBe(before);
    const rest = await following(reader, reader[Symbol.asyncIterator]().next(), 2);
    expect(reads, 'the folded row read').toBe(before + 1);
    await streams.endStream('h-3');
    expect([first, ...rest].map((chunk) => JSON.stringify(chunk))).toEqual((await stored('h-3')).slice(1));
    expect((rest[0] as StreamChunk & { patches: unknown }).patches, 'the checkpoint’s (none)').toEqual([]);
    await reader.close();
    await writer.close();
  });

  it('are read after a gap (the reader has not read the chunks before them)', async () => {
    const other = await elsewhere.createWriter('h-4', 'agent', 'assistant');
    await other.write(text('a'));
    await other.close();
    const reader = await streams.createReader('h-4');
    const writer = await streams.createWriter('h-4', 'agent', 'assistant');
    await record(await handOver(writer, [{ chunk: text('b') }]), 'COMMIT');
    const before = reads;
    const iterator = reader[Symbol.asyncIterator]();
    const chunks = [(await iterator.next()).value as StreamChunk, (await iterator.next()).value as StreamChunk];
    expect(reads).toBe(before + 1);
    await streams.endStream('h-4');
    expect(chunks.map((chunk) => JSON.stringify(chunk))).toEqual(await stored('h-4'));
    await reader.close();
    await writer.close();
  });

  it('end the reader when the same transaction ended the stream: its status is read after them', async () => {
    const writer = await streams.createWriter('h-5', 'agent', 'assistant');
    await writer.write(text('a'));
    await writer.flush();
    const { reader, pending } = await waitingReader('h-5');
    await record(await handOver(writer, [{ chunk: text('b') }, { chunk: text('c') }]), 'COMMIT', 'h-5');
    const handed = await following(reader, pending, 2);
    expect(await reader[Symbol.asyncIterator]().next()).toEqual({ done: true, value: undefined });
    expect(handed.map((chunk) => JSON.stringify(chunk))).toEqual((await stored('h-5')).slice(1));
    await writer.close();
  });

  it('are never yielded when their transaction rolls back: a reader woken meanwhile reads what committed instead', async () => {
    const writer = await streams.createWriter('h-6', 'agent', 'assistant');
    await writer.write(text('a'));
    await writer.flush();
    const { reader, pending } = await waitingReader('h-6');
    await record(await handOver(writer, [{ chunk: text('rolled back') }]), 'ROLLBACK');
    const other = await elsewhere.createWriter('h-6', 'agent', 'assistant');
    await other.write(text('b'));
    await other.close(); // its NOTIFY wakes the reader; the rolled-back batch, at the same sequence, never settles
    const [next] = await following(reader, pending, 1);
    expect(next).toMatchObject({ type: 'text_delta', delta: 'b', sequence: 2 });
    await reader.close();
    await writer.close();
  });

  it('reach a reader from a writer’s own flush too (its append commits when answered)', async () => {
    const writer = await streams.createWriter('h-8', 'agent', 'assistant');
    await writer.write(text('a'));
    await writer.flush();
    const { reader, pending } = await waitingReader('h-8');
    const before = reads;
    await writer.write(text('b'));
    await writer.write(text('c', { agentId: 'sub', agentType: 'researcher' }));
    await writer.flush();
    const handed = await following(reader, pending, 2);
    expect(reads).toBe(before);
    await streams.endStream('h-8');
    expect(handed.map((chunk) => JSON.stringify(chunk))).toEqual((await stored('h-8')).slice(1));
    await reader.close();
    await writer.close();
  });

  it('are handed again by a retried transaction, with the sequences it reserved', async () => {
    const writer = await streams.createWriter('h-7', 'agent', 'assistant');
    await writer.write(text('a'));
    await writer.flush();
    const { reader, pending } = await waitingReader('h-7');
    const handover = await handOver(writer, [{ chunk: text('b') }, { chunk: text('c') }]);
    await record(handover, 'ROLLBACK');
    const before = reads;
    await record(handover, 'COMMIT');
    const handed = await following(reader, pending, 2);
    expect(reads).toBe(before);
    await streams.endStream('h-7');
    expect(handed.map((chunk) => JSON.stringify(chunk))).toEqual((await stored('h-7')).slice(1));
    await reader.close();
    await writer.close();
  });
});

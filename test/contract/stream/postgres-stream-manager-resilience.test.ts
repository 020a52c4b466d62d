import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StreamError } from '../../../src/errors/index.js';
import { PostgresStreamManager, type PostgresStreamManagerOptions } from '../../../src/stream/postgres/postgres-stream-manager.js';
import type { StreamReader } from '../../../src/stream/stream-manager.js';
import type { StreamChunk, StreamChunkInput } from '../../../src/types/stream.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

let database: TestDatabase;
let admin: pg.Pool;
let managers: PostgresStreamManager[] = [];

beforeAll(async () => {
  database = await createTestDatabase('stream_pg_resilience');
  admin = new pg.Pool({ connectionString: database.url, max: 2 });
  const migrator = new PostgresStreamManager({ pool: admin });
  await migrator.migrate();
  await migrator.close();
});

afterEach(async () => {
  await Promise.all(managers.map((manager) => manager.close()));
  managers = [];
});

afterAll(async () => {
  await admin.end();
  await database.drop();
});

function manager(options: PostgresStreamManagerOptions = {}): PostgresStreamManager {
  const created = new PostgresStreamManager({ connectionString: database.url }, options);
  managers.push(created);
  return created;
}

function chunk(delta: string, step = 1): StreamChunkInput {
  return { type: 'text_delta', delta, agentId: 'agent-1', agentType: 'assistant', step, timestamp: Date.now() };
}

async function nextChunk(iterator: AsyncIterator<StreamChunk>, milliseconds: number): Promise<StreamChunk> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no chunk within ${milliseconds} ms`)), milliseconds);
  });
  try {
    const result = await Promise.race([iterator.next(), timeout]);
    if (result.done === true) throw new Error('reader completed unexpectedly');
    return result.value;
  } finally {
    clearTimeout(timer);
  }
}

async function listenerPids(): Promise<number[]> {
  const result = await admin.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'",
  );
  return result.rows.map((row) => row.pid);
}

async function waitUntil(condition: () => Promise<boolean>, milliseconds: number, what: string): Promise<void> {
  const deadline = Date.now() + milliseconds;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * A manager on its own pool whose `pool.connect()` (the listener's checkout; queries use the callback form) waits
 * while `holdReconnects()` is in force, so a test controls what is written while nobody listens. A one-minute poll
 * interval: every wake-up must come from NOTIFY, the reconnect or the manager itself.
 */
function gatedManager(): { streams: PostgresStreamManager; pool: pg.Pool; holdReconnects: () => void; openReconnects: () => void } {
  const pool = new pg.Pool({ connectionString: database.url, max: 5 });
  const connect = pool.connect.bind(pool);
  let gate: Promise<void> | undefined;
  let open = (): void => {};
  pool.connect = ((...args: Parameters<typeof connect>) =>
    args.length > 0 ? connect(...args) : (gate ?? Promise.resolve()).then(() => connect())) as typeof pool.connect;
  const streams = new PostgresStreamManager({ pool }, { pollIntervalMs: 60_000 });
  return {
    streams,
    pool,
    holdReconnects: () => {
      gate = new Promise((resolve) => (open = resolve));
    },
    openReconnects: () => open(),
  };
}

/** Terminate the manager's LISTEN connection and wait until it noticed and the readers' re-query settled. */
async function dropListener(streams: PostgresStreamManager, pool: pg.Pool, pid: number | undefined): Promise<void> {
  await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  await waitUntil(async () => streams.listenerProcessId === undefined && (await listenerPids()).length === 0, 5_000, 'the listener to notice');
  // The drop wakes readers once; let that re-query finish (its pool client back to idle) before writing.
  await new Promise((resolve) => setTimeout(resolve, 50));
  await waitUntil(async () => pool.idleCount === pool.totalCount && pool.waitingCount === 0, 3_000, 'the reader to settle');
}

describe('PostgresStreamManager resilience', () => {
  it('readers survive a terminated LISTEN connection: it reconnects and wakes them without polling', async () => {
    const { streams, pool, holdReconnects, openReconnects } = gatedManager();
    try {
      const id = `resilience-${randomUUID()}`;
      const reader: StreamReader = await streams.createReader(id);
      const iterator = reader[Symbol.asyncIterator]();
      // The writer is another manager (another process's): only the NOTIFY tells this one's reader.
      const writer = await manager().createWriter(id, 'agent-1', 'assistant');
      await writer.write(chunk('c1'));
      await writer.flush();
      expect(await nextChunk(iterator, 3_000)).toMatchObject({ sequence: 1, delta: 'c1' });

      await waitUntil(async () => streams.listenerProcessId !== undefined, 3_000, 'the LISTEN connection');
      const [original] = await listenerPids();
      expect(original).toBeDefined();
      expect(streams.listenerProcessId).toBe(original);
      holdReconnects();
      const pending = nextChunk(iterator, 10_000); // the reader is now waiting for sequence 2
      await dropListener(streams, pool, original);

      // Written while nobody listens: its NOTIFY is lost, and the waiting reader must not see it yet…
      await writer.write(chunk('c2'));
      await writer.flush();
      const early = await Promise.race([pending.then(() => 'woke'), new Promise((resolve) => setTimeout(() => resolve('asleep'), 200))]);
      expect(early).toBe('asleep');
      // …until the listener reconnects, which wakes every reader to re-query from its last sequence.
      openReconnects();
      expect(await pending).toMatchObject({ sequence: 2, delta: 'c2' });
      await waitUntil(async () => (await listenerPids()).length === 1, 3_000, 'the new LISTEN connection');
      expect((await listenerPids())[0]).not.toBe(original);

      for (const delta of ['c3', 'c4', 'c5']) {
        await writer.write(chunk(delta));
        await writer.flush();
        expect(await nextChunk(iterator, 3_000)).toMatchObject({ delta });
      }
      await streams.endStream(id);
      expect(await iterator.next()).toEqual({ done: true, value: undefined });
    } finally {
      openReconnects();
      await streams.close();
      await pool.end();
    }
  });

  it('a write this manager commits wakes its own readers at once, without its LISTEN connection', async () => {
    const { streams, pool, holdReconnects, openReconnects } = gatedManager();
    try {
      const id = `resilience-${randomUUID()}`;
      const iterator = (await streams.createReader(id))[Symbol.asyncIterator]();
      const writer = await streams.createWriter(id, 'agent-1', 'assistant');
      await writer.write(chunk('c1'));
      await writer.flush();
      expect(await nextChunk(iterator, 3_000)).toMatchObject({ sequence: 1 });
      await waitUntil(async () => streams.listenerProcessId !== undefined, 3_000, 'the LISTEN connection');
      // Nobody listens from here on (the reconnect is held back), and the poll is a minute away.
      holdReconnects();
      const pending = nextChunk(iterator, 10_000);
      await dropListener(streams, pool, streams.listenerProcessId);
      await writer.write(chunk('c2'));
      await writer.flush();
      const woken = await Promise.race([pending.then(() => 'woke'), new Promise((resolve) => setTimeout(() => resolve('asleep'), 1_000))]);
      expect(woken).toBe('woke');
      expect(await pending).toMatchObject({ sequence: 2, delta: 'c2' });
      // The reconnect completes before the manager closes (a connection checked out meanwhile would have no owner).
      openReconnects();
      await waitUntil(async () => (await listenerPids()).length === 1, 3_000, 'the new LISTEN connection');
      await streams.endStream(id);
      expect(await iterator.next()).toEqual({ done: true, value: undefined });
    } finally {
      openReconnects();
      await streams.close();
      await pool.end();
    }
  });

  it('writers in different managers (separate pools) get contiguous sequences; a third manager reads them live', async () => {
    const id = `resilience-${randomUUID()}`;
    const readerSide = manager();
    const reading = (async () => {
      const seen: StreamChunk[] = [];
      for await (const received of await readerSide.createReader(id)) seen.push(received);
      return seen;
    })();
    const [first, second] = [manager({ batchSize: 7 }), manager({ batchSize: 7 })];
    const writeAll = async (streams: PostgresStreamManager, agentId: string): Promise<void> => {
      const writer = await streams.createWriter(id, agentId, 'assistant');
      for (let index = 0; index < 120; index += 1) await writer.write({ ...chunk(`${agentId}-${index}`), agentId });
      await writer.close();
    };
    await Promise.all([writeAll(first, 'one'), writeAll(second, 'two')]);
    await first.endStream(id);
    const seen = await reading;
    expect(seen.map((received) => received.sequence)).toEqual(Array.from({ length: 240 }, (_, index) => index + 1));
    for (const agentId of ['one', 'two']) {
      const deltas = seen.filter((received) => received.agentId === agentId).map((received) => (received.type === 'text_delta' ? received.delta : ''));
      expect(deltas).toEqual(Array.from({ length: 120 }, (_, index) => `${agentId}-${index}`));
    }
  });

  it('flushes every batchSize chunks and after flushIntervalMs, one batch per statement', async () => {
    const id = `resilience-${randomUUID()}`;
    const streams = manager({ batchSize: 100, flushIntervalMs: 60_000 });
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    for (let index = 0; index < 250; index += 1) await writer.write(chunk(`c${index}`));
    expect(await streams.getInfo(id)).toMatchObject({ lastSequence: 200, chunkCount: 200 });
    await writer.flush();
    expect(await streams.getInfo(id)).toMatchObject({ lastSequence: 250, chunkCount: 250 });

    const timed = manager({ flushIntervalMs: 20 });
    const timedWriter = await timed.createWriter(id, 'agent-1', 'assistant');
    await timedWriter.write(chunk('late'));
    expect((await timed.getInfo(id))?.lastSequence).toBe(250);
    await waitUntil(async () => (await timed.getInfo(id))?.lastSequence === 251, 2_000, 'the interval flush');
  });

  it('a writer whose stream was ended by another manager fails its flush with STREAM_CLOSED and drops the batch', async () => {
    const id = `resilience-${randomUUID()}`;
    const writerSide = manager({ flushIntervalMs: 60_000 });
    const writer = await writerSide.createWriter(id, 'agent-1', 'assistant');
    await writer.write(chunk('stored'));
    await writer.flush();
    await manager().endStream(id);
    await writer.write(chunk('too late'));
    const isClosed = (error: unknown): boolean => StreamError.isInstance(error) && error.code === 'STREAM_CLOSED';
    await expect(writer.flush()).rejects.toSatisfy(isClosed);
    await expect(writer.write(chunk('still too late'))).rejects.toSatisfy(isClosed);
    expect(await writerSide.getInfo(id)).toMatchObject({ status: 'ended', lastSequence: 1, chunkCount: 1 });
  });

  it('works in a custom schema created by migrate()', async () => {
    const schema = `streams_${randomUUID().slice(0, 8)}`;
    const streams = manager({ schema });
    await streams.migrate();
    await streams.migrate();
    const tables = await admin.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [schema],
    );
    expect(tables.rows.map((row) => row.table_name)).toEqual(expect.arrayContaining(['__agents_stream_chunks', '__agents_streams']));
    const id = `resilience-${randomUUID()}`;
    const reader = (await streams.createReader(id))[Symbol.asyncIterator]();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    await writer.write(chunk('in-schema'));
    await writer.flush();
    expect(await nextChunk(reader, 3_000)).toMatchObject({ sequence: 1, delta: 'in-schema' });
    const stored = await admin.query(`SELECT count(*)::int AS count FROM "${schema}".__agents_stream_chunks WHERE stream_id = $1`, [id]);
    expect(stored.rows[0]).toEqual({ count: 1 });
  });

  it('works in a schema whose name is long in bytes (multi-byte characters): appends notify, readers wake', async () => {
    const schema = `схема_${'ж'.repeat(26)}`; // 63 bytes: the longest name the store accepts
    const streams = manager({ schema, pollIntervalMs: 60_000 });
    await streams.migrate();
    const id = `resilience-${randomUUID()}`;
    const reader = (await streams.createReader(id))[Symbol.asyncIterator]();
    await waitUntil(async () => streams.listenerProcessId !== undefined, 3_000, 'the LISTEN connection');
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    await writer.write(chunk('multi-byte schema'));
    await writer.flush();
    expect(await nextChunk(reader, 3_000)).toMatchObject({ sequence: 1, delta: 'multi-byte schema' });
  });

  it('leaves a pool it was given open on close()', async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 3 });
    const streams = new PostgresStreamManager({ pool });
    const id = `resilience-${randomUUID()}`;
    const reader = await streams.createReader(id);
    await waitUntil(async () => streams.listenerProcessId !== undefined, 3_000, 'the LISTEN connection');
    const listener = streams.listenerProcessId;
    await streams.close();
    await reader.close();
    const result = await pool.query<{ one: number }>('SELECT 1 AS one');
    expect(result.rows).toEqual([{ one: 1 }]);
    await waitUntil(async () => !(await listenerPids()).includes(listener ?? -1), 3_000, 'the LISTEN connection to close');
    await pool.end();
  });
});

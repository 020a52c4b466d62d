import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStreamManager, type PostgresStreamManagerOptions } from '../../../src/stream/postgres/postgres-stream-manager.js';
import type { StreamChunk, StreamChunkInput } from '../../../src/types/stream.js';
import { FaultProxy, postgresReplyComplete } from '../../support/fault-proxy.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

// Real faults on this file's own database: replies lost after COMMIT, backends terminated mid-flush.
let database: TestDatabase;
let admin: pg.Pool;
let managers: PostgresStreamManager[] = [];

beforeAll(async () => {
  database = await createTestDatabase('stream_pg_faults');
  admin = new pg.Pool({ connectionString: database.url, max: 2 });
  await new PostgresStreamManager({ pool: admin }).migrate();
});

afterEach(async () => {
  await Promise.all(managers.map((manager) => manager.close()));
  managers = [];
});

afterAll(async () => {
  await admin.end();
  await database.drop();
});

function manager(connectionString = database.url, options: PostgresStreamManagerOptions = {}): PostgresStreamManager {
  const created = new PostgresStreamManager({ connectionString }, { retry: { budgetMs: 30_000, maxDelayMs: 200 }, ...options });
  managers.push(created);
  return created;
}

function chunk(delta: string): StreamChunkInput {
  return { type: 'text_delta', delta, agentId: 'agent-1', agentType: 'assistant', step: 1, timestamp: 1 };
}

const deltas = (chunks: StreamChunk[]): string[] => chunks.map((received) => (received.type === 'text_delta' ? received.delta : received.type));

async function readAll(streams: PostgresStreamManager, id: string): Promise<StreamChunk[]> {
  const seen: StreamChunk[] = [];
  for await (const received of await streams.createReader(id)) seen.push(received);
  return seen;
}

describe('PostgresStreamManager under real faults', () => {
  it('a batch whose COMMIT landed but whose reply was lost is re-sent with the same keys and stored once', async () => {
    const target = new URL(database.url);
    const proxy = await FaultProxy.start(Number(target.port));
    try {
      const viaProxy = new URL(database.url);
      viaProxy.port = String(proxy.port);
      const streams = manager(viaProxy.toString(), { flushIntervalMs: 60_000 });
      const id = `faults-${randomUUID()}`;
      const writer = await streams.createWriter(id, 'agent-1', 'assistant');
      await writer.write(chunk('a'));
      await writer.flush();
      proxy.dropReplyTo('reply-lost-here', postgresReplyComplete);
      await writer.write(chunk('reply-lost-here'));
      await writer.write(chunk('same batch'));
      await writer.flush();
      await writer.write(chunk('b'));
      await writer.close();
      await streams.endStream(id);
      expect(proxy.dropped).toBe(1);
      expect(proxy.markedRequests).toBe(2);
      const seen = await readAll(manager(), id);
      expect(deltas(seen)).toEqual(['a', 'reply-lost-here', 'same batch', 'b']);
      expect(seen.map((received) => received.sequence)).toEqual([1, 2, 3, 4]);
    } finally {
      await proxy.close();
    }
  });

  it('backends terminated again and again mid-flush: writers retry, a live reader sees every chunk once, in order', async () => {
    const id = `faults-${randomUUID()}`;
    const reading = readAll(manager(database.url, { pollIntervalMs: 200 }), id);
    const streams = manager(database.url, { batchSize: 20 });
    const total = 600;
    let writing = true;
    const killing = (async () => {
      let kills = 0;
      while (writing) {
        await new Promise((resolve) => setTimeout(resolve, 40));
        const killed = await admin.query<{ pid: number }>(
          'SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        );
        kills += killed.rowCount ?? 0;
      }
      return kills;
    })();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    for (let index = 0; index < total; index += 1) {
      await writer.write(chunk(`c${index}`));
      if (index % 25 === 24) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await writer.close();
    writing = false;
    expect(await killing).toBeGreaterThan(10);
    await streams.endStream(id);
    const seen = await reading;
    expect(deltas(seen)).toEqual(Array.from({ length: total }, (_, index) => `c${index}`));
    expect(seen.map((received) => received.sequence)).toEqual(Array.from({ length: total }, (_, index) => index + 1));
    expect(await streams.getInfo(id)).toMatchObject({ lastSequence: total, chunkCount: total });
  }, 60_000);
});

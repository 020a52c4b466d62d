import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import type { StreamChunk, StreamChunkInput } from '../../../src/types/stream.js';
import { readStream } from '../../support/read-stream.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

// Issue 11 (stored bytes per step): a stream records one agent type (migration 015); chunks of that type are stored
// without `agentType` and read back with it. Every other chunk keeps its own, whoever wrote it.

let database: TestDatabase;
let streams: PostgresStreamManager;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase('stream_agent_type');
  // No timed flush: the tests order appends by their explicit flushes (a busy machine's timer would flush between writes).
  streams = new PostgresStreamManager({ connectionString: database.url }, { flushIntervalMs: 60_000 });
  await streams.migrate();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await streams?.close();
  await database?.drop();
});

const delta = (agentId: string, agentType: string, text: string): StreamChunkInput => ({ type: 'text_delta', delta: text, agentId, agentType, step: 1, timestamp: 5 });

async function stored(streamId: string): Promise<{ agentType: string | null; texts: string[] }> {
  const stream = await pool.query<{ agent_type: string | null }>('SELECT agent_type FROM __agents_streams WHERE stream_id = $1', [streamId]);
  const rows = await pool.query<{ chunk: string }>('SELECT chunk FROM __agents_stream_chunks WHERE stream_id = $1 ORDER BY sequence', [streamId]);
  return { agentType: stream.rows[0]?.agent_type ?? null, texts: rows.rows.map((row) => row.chunk) };
}

async function readAll(streamId: string): Promise<StreamChunk[]> {
  await streams.endStream(streamId);
  return readStream(streams, streamId);
}

describe('the stream’s agent type (PostgresStreamManager)', () => {
  it('is its own agent’s: that agent’s chunks are stored without it; a sub-agent’s, or another type written as the stream’s agent, keep theirs', async () => {
    const own = await streams.createWriter('at-1', 'at-1', 'planner');
    const child = await streams.createWriter('at-1', 'at-1-sub', 'researcher');
    const other = await streams.createWriter('at-1', 'at-1', 'reviewer');
    await own.write(delta('at-1', 'planner', 'a'));
    await child.write(delta('at-1-sub', 'researcher', 'b'));
    await other.write(delta('at-1', 'reviewer', 'c'));
    await own.write(delta('at-1', 'reviewer', 'd')); // not its writer's type: kept
    for (const writer of [own, child, other]) await writer.flush(); // in this order: a and d first

    expect(await stored('at-1')).toEqual({
      agentType: 'planner',
      texts: [
        '{"type":"text_delta","delta":"a","timestamp":5}',
        '{"type":"text_delta","delta":"d","agentType":"reviewer","timestamp":5}',
        '{"type":"text_delta","delta":"b","agentId":"at-1-sub","timestamp":5,"agentType":"researcher"}', // put back by the append
        '{"type":"text_delta","delta":"c","timestamp":5,"agentType":"reviewer"}',
      ],
    });
    expect((await readAll('at-1')).map((chunk) => [chunk.agentId, chunk.agentType, chunk.type === 'text_delta' ? chunk.delta : ''])).toEqual([
      ['at-1', 'planner', 'a'],
      ['at-1', 'reviewer', 'd'],
      ['at-1-sub', 'researcher', 'b'],
      ['at-1', 'reviewer', 'c'],
    ]);
    for (const writer of [own, child, other]) await writer.close();
  });

  it('is taken by the first append when no own agent opened the stream, and never changes after', async () => {
    const child = await streams.createWriter('at-2', 'at-2-sub', 'researcher');
    expect((await stored('at-2')).agentType).toBeNull();
    await child.write(delta('at-2-sub', 'researcher', 'a'));
    await child.flush();
    const own = await streams.createWriter('at-2', 'at-2', 'planner');
    await own.write(delta('at-2', 'planner', 'b'));
    await own.flush();
    expect(await stored('at-2')).toEqual({
      agentType: 'researcher',
      texts: ['{"type":"text_delta","delta":"a","agentId":"at-2-sub","timestamp":5}', '{"type":"text_delta","delta":"b","timestamp":5,"agentType":"planner"}'],
    });
    expect((await readAll('at-2')).map((chunk) => [chunk.agentId, chunk.agentType])).toEqual([
      ['at-2-sub', 'researcher'],
      ['at-2', 'planner'],
    ]);
    await child.close();
    await own.close();
  });

  it('reads rows stored before it (every chunk with its own type, no type on the stream) as they were', async () => {
    await pool.query(`INSERT INTO __agents_streams (stream_id, status, last_sequence, created_at, updated_at) VALUES ('at-3', 'active', 1, 0, 0)`);
    await pool.query(`INSERT INTO __agents_stream_chunks (stream_id, sequence, step, chunk) VALUES ('at-3', 1, 1, '{"type":"text_delta","delta":"x","agentType":"old","timestamp":1}')`);
    expect(await readAll('at-3')).toEqual([{ type: 'text_delta', delta: 'x', agentId: 'at-3', agentType: 'old', step: 1, timestamp: 1, sequence: 1 }]);
  });
});

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamError } from '../../../src/errors/index.js';
import { ChunkEmitter, releaseAllStreamWriters } from '../../../src/steps/stream-writers.js';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import type { StreamChunk } from '../../../src/types/stream.js';
import { readStream } from '../../support/read-stream.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

// A step's writer is cached per process; its idea of the stream (closed) can be older than another process's
// reactivation (a retry or the next turn started elsewhere). The cache must not fail the run for it.
let database: TestDatabase;
let admin: pg.Pool;
let here: PostgresStreamManager;
let elsewhere: PostgresStreamManager;

beforeAll(async () => {
  database = await createTestDatabase('stream_writer_cache');
  admin = new pg.Pool({ connectionString: database.url, max: 2 });
  await new PostgresStreamManager({ pool: admin }).migrate();
  here = new PostgresStreamManager({ connectionString: database.url });
  elsewhere = new PostgresStreamManager({ connectionString: database.url });
});
afterAll(async () => {
  await releaseAllStreamWriters();
  await Promise.all([here?.close(), elsewhere?.close()]);
  await admin?.end();
  await database?.drop();
});

const readAll = (streamId: string): Promise<StreamChunk[]> => readStream(here, streamId);
const isClosed = (error: unknown): boolean => StreamError.isInstance(error) && error.code === 'STREAM_CLOSED';

/** An emitter that wrote `first`, then learnt from a refused append that another process ended the stream. */
async function emitterRefusedByEndedStream(streamId: string, first: string): Promise<ChunkEmitter> {
  const emitter = new ChunkEmitter(here, streamId, 'agent-1', 'assistant', 1);
  await emitter.emit({ type: 'text_delta', delta: first });
  await emitter.flush();
  await elsewhere.endStream(streamId);
  await expect(emitter.emit({ type: 'text_delta', delta: 'refused' }).then(() => emitter.flush())).rejects.toSatisfy(isClosed);
  return emitter;
}

describe('ChunkEmitter: a cached writer that believes the stream closed', () => {
  it('writes once another process reactivated the stream (it asks the stream again instead of failing the step)', async () => {
    const emitter = await emitterRefusedByEndedStream('cache-reactivated', 'first turn');
    await elsewhere.reactivateStream('cache-reactivated');
    await emitter.emit({ type: 'text_delta', delta: 'next turn' });
    await emitter.flush();
    await elsewhere.endStream('cache-reactivated');
    const deltas = (await readAll('cache-reactivated')).map((chunk) => (chunk.type === 'text_delta' ? chunk.delta : chunk.type));
    expect(deltas).toEqual(['first turn', 'next turn']);
  });

  it('still refuses with STREAM_CLOSED when the stream really is closed', async () => {
    const emitter = await emitterRefusedByEndedStream('cache-closed', 'only');
    await expect(emitter.emit({ type: 'text_delta', delta: 'refused again' })).rejects.toSatisfy(isClosed);
    expect((await readAll('cache-closed')).map((chunk) => chunk.type)).toEqual(['text_delta']);
  });
});

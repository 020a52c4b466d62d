/**
 * PostgresStateStore.deleteSession and the session's stream in the same schema: the chunks go, the stream becomes
 * writable again with its sequence kept; a sub-agent's session (writing into its root's stream) and other streams
 * are left alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStateStore } from '../../../src/store/index.js';
import { PostgresStreamManager } from '../../../src/stream/index.js';
import type { StreamChunkInput } from '../../../src/types/stream.js';
import { readStream } from '../../support/read-stream.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

let database: TestDatabase;
let store: PostgresStateStore;
let streams: PostgresStreamManager;
beforeAll(async () => {
  database = await createTestDatabase('delete_session_stream');
  store = new PostgresStateStore({ connectionString: database.url }, { schema: 'helix' });
  await store.migrate();
  streams = new PostgresStreamManager({ connectionString: database.url }, { schema: 'helix' });
});
afterAll(async () => {
  await Promise.allSettled([store?.close(), streams?.close()]);
  await database?.drop();
});

const text = (agentId: string, delta: string): StreamChunkInput => ({ type: 'text_delta', delta, agentId, agentType: 'assistant', step: 1, timestamp: 1 });
const deltas = (chunks: Awaited<ReturnType<typeof readStream>>): string[] => chunks.map((chunk) => (chunk.type === 'text_delta' ? chunk.delta : chunk.type));

/** A root session with its own ended stream of `count` chunks (one of them a sub-agent's), and a sub-agent session. */
async function endedSession(sessionId: string): Promise<void> {
  await store.createSession(sessionId, { agentType: 'assistant', streamId: sessionId, status: 'completed' });
  await store.createSession(`${sessionId}-sub-c1`, { agentType: 'child', streamId: sessionId, parentSessionId: sessionId, rootSessionId: sessionId });
  const writer = await streams.createWriter(sessionId, sessionId, 'assistant');
  await writer.write(text(sessionId, 'old root'));
  await writer.write(text(`${sessionId}-sub-c1`, 'old child'));
  await writer.close();
  await streams.endStream(sessionId, 'old output');
}

describe('PostgresStateStore.deleteSession with the stream tables in its schema', () => {
  it('deletes the chunks of the session’s own stream and makes it writable; sequences continue', async () => {
    await endedSession('delete-own');
    await endedSession('delete-other');
    await store.deleteSession('delete-own');
    expect(await streams.getInfo('delete-own')).toMatchObject({ status: 'active', lastSequence: 2, chunkCount: 0 });
    expect((await streams.getInfo('delete-own'))?.output).toBeUndefined();

    const writer = await streams.createWriter('delete-own', 'delete-own', 'other-agent');
    await writer.write({ ...text('delete-own', 'new root'), agentType: 'other-agent' });
    await writer.close();
    await streams.endStream('delete-own');
    expect(await readStream(streams, 'delete-own')).toMatchObject([{ sequence: 3, delta: 'new root', agentType: 'other-agent' }]);
    expect(deltas(await readStream(streams, 'delete-other'))).toEqual(['old root', 'old child']);
    expect(await streams.getInfo('delete-other')).toMatchObject({ status: 'ended', output: 'old output' });
  });

  it('leaves the root’s stream alone when a sub-agent’s session is deleted, and is idempotent', async () => {
    await endedSession('delete-child');
    await store.deleteSession('delete-child-sub-c1');
    await store.deleteSession('delete-child-sub-c1');
    expect(await streams.getInfo('delete-child')).toMatchObject({ status: 'ended', chunkCount: 2 });
    await store.deleteSession('delete-child');
    await store.deleteSession('delete-child');
    expect(await streams.getInfo('delete-child')).toMatchObject({ status: 'active', lastSequence: 2, chunkCount: 0 });
  });
});

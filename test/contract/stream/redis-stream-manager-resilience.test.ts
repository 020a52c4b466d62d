import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StreamError } from '../../../src/errors/index.js';
import { RedisStreamManager, type RedisStreamManagerOptions } from '../../../src/stream/redis/redis-stream-manager.js';
import type { StreamChunk, StreamChunkInput } from '../../../src/types/stream.js';
import { redisAvailable, testRedisUrl } from '../../support/services.js';

const keyPrefix = `test:stream-resilience:${randomUUID()}:`;
let admin: Redis;
let cleanups: (() => Promise<unknown>)[] = [];

const hasRedis = redisAvailable();

beforeAll(() => {
  if (!hasRedis) return;
  admin = new Redis(testRedisUrl());
});

afterEach(async () => {
  await Promise.all(cleanups.map((cleanup) => cleanup()));
  cleanups = [];
});

afterAll(async () => {
  if (!hasRedis) return;
  const keys = await admin.keys(`${keyPrefix}*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

/** A manager on its own named client, so CLIENT LIST can find its connections (and its readers' duplicates). */
function manager(options: RedisStreamManagerOptions = {}): { streams: RedisStreamManager; client: Redis; name: string } {
  const name = `stream-test-${randomUUID().slice(0, 8)}`;
  const client = new Redis(testRedisUrl(), { connectionName: name });
  const streams = new RedisStreamManager({ client }, { keyPrefix, ...options });
  cleanups.push(async () => {
    await streams.close();
    await client.quit();
  });
  return { streams, client, name };
}

function chunk(delta: string, step = 1): StreamChunkInput {
  return { type: 'text_delta', delta, agentId: 'agent-1', agentType: 'assistant', step, timestamp: Date.now() };
}

async function connectionsNamed(name: string): Promise<{ id: string; cmd: string }[]> {
  const list = (await admin.client('LIST')) as string;
  return list
    .split('\n')
    .map((line) => Object.fromEntries(line.trim().split(' ').map((pair) => pair.split('=') as [string, string])))
    .filter((fields) => fields.name === name)
    .map((fields) => ({ id: fields.id ?? '', cmd: fields.cmd ?? '' }));
}

async function waitUntil(condition: () => Promise<boolean>, milliseconds: number, what: string): Promise<void> {
  const deadline = Date.now() + milliseconds;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
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

describe.skipIf(!hasRedis)('RedisStreamManager resilience', () => {
  it('each waiting reader holds one blocking connection, closed by reader.close()', async () => {
    const { streams, name } = manager({ blockTimeoutMs: 60_000 });
    await streams.getInfo('warm-up');
    expect(await connectionsNamed(name)).toHaveLength(1);
    const readers = await Promise.all([streams.createReader(`resilience-${randomUUID()}`), streams.createReader(`resilience-${randomUUID()}`)]);
    const pending = readers.map((reader) => reader[Symbol.asyncIterator]().next());
    await waitUntil(async () => (await connectionsNamed(name)).filter((connection) => connection.cmd === 'xread').length === 2, 3_000, 'two blocked readers');
    await readers[0]?.close();
    await waitUntil(async () => (await connectionsNamed(name)).length === 2, 3_000, 'the first reader connection to close');
    await readers[1]?.close();
    await waitUntil(async () => (await connectionsNamed(name)).length === 1, 3_000, 'the second reader connection to close');
    expect(await Promise.all(pending)).toEqual([{ done: true, value: undefined }, { done: true, value: undefined }]);
  });

  it('a reader whose blocking connection is killed reconnects and misses nothing', async () => {
    const { streams, name } = manager({ blockTimeoutMs: 60_000 });
    const id = `resilience-${randomUUID()}`;
    const iterator = (await streams.createReader(id))[Symbol.asyncIterator]();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    await writer.write(chunk('c1'));
    await writer.flush();
    expect(await nextChunk(iterator, 3_000)).toMatchObject({ sequence: 1 });
    const pending = nextChunk(iterator, 5_000);
    await waitUntil(async () => (await connectionsNamed(name)).some((connection) => connection.cmd === 'xread'), 3_000, 'the reader to block');
    const blocked = (await connectionsNamed(name)).find((connection) => connection.cmd === 'xread');
    await admin.client('KILL', 'ID', blocked?.id ?? '');
    await writer.write(chunk('c2'));
    await writer.flush();
    expect(await pending).toMatchObject({ sequence: 2, delta: 'c2' });
    for (const delta of ['c3', 'c4']) {
      await writer.write(chunk(delta));
      await writer.flush();
      expect(await nextChunk(iterator, 3_000)).toMatchObject({ delta });
    }
    await streams.endStream(id);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('writers in different managers (separate connections) get contiguous sequences', async () => {
    const id = `resilience-${randomUUID()}`;
    const writeAll = async (streams: RedisStreamManager, agentId: string): Promise<void> => {
      const writer = await streams.createWriter(id, agentId, 'assistant');
      for (let index = 0; index < 120; index += 1) await writer.write({ ...chunk(`${agentId}-${index}`), agentId });
      await writer.close();
    };
    await Promise.all([writeAll(manager({ batchSize: 7 }).streams, 'one'), writeAll(manager({ batchSize: 5 }).streams, 'two')]);
    const { streams } = manager();
    await streams.endStream(id);
    const seen: StreamChunk[] = [];
    for await (const received of await streams.createReader(id)) seen.push(received);
    expect(seen.map((received) => received.sequence)).toEqual(Array.from({ length: 240 }, (_, index) => index + 1));
  });

  it('cleanupToStep pages through long streams', async () => {
    const { streams } = manager();
    const id = `resilience-${randomUUID()}`;
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    for (let index = 0; index < 1_200; index += 1) await writer.write(chunk(`c${index}`, index % 3));
    await writer.close();
    await streams.cleanupToStep(id, 1);
    expect(await streams.getInfo(id)).toMatchObject({ lastSequence: 1_200, chunkCount: 800 });
    await streams.endStream(id);
    const steps: number[] = [];
    for await (const received of await streams.createReader(id)) steps.push(received.step);
    expect(steps).toHaveLength(800);
    expect(steps.every((step) => step <= 1)).toBe(true);
  });

  it('re-sends scripts after SCRIPT FLUSH, and reports STREAM_CLOSED for a stream ended elsewhere', async () => {
    const { streams } = manager({ flushIntervalMs: 60_000 });
    const id = `resilience-${randomUUID()}`;
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    await writer.write(chunk('before'));
    await writer.flush();
    await admin.script('FLUSH');
    await writer.write(chunk('after flush'));
    await writer.flush();
    expect(await streams.getInfo(id)).toMatchObject({ lastSequence: 2 });
    await manager().streams.endStream(id, 'done elsewhere');
    await writer.write(chunk('too late'));
    const isClosed = (error: unknown): boolean => StreamError.isInstance(error) && error.code === 'STREAM_CLOSED';
    await expect(writer.flush()).rejects.toSatisfy(isClosed);
    await expect(writer.write(chunk('still too late'))).rejects.toSatisfy(isClosed);
    expect(await streams.getInfo(id)).toMatchObject({ status: 'ended', output: 'done elsewhere', lastSequence: 2 });
  });

  it('quits a client it created, but leaves a client it was given connected', async () => {
    const owned = new RedisStreamManager({ url: testRedisUrl() }, { keyPrefix });
    await owned.getInfo('warm-up');
    await owned.close();
    await expect(owned.getInfo('after-close')).rejects.toThrow();
    const { streams, client } = manager();
    await streams.getInfo('warm-up');
    await streams.close();
    expect(await client.ping()).toBe('PONG');
  });
});

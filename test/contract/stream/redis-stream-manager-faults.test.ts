import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStreamManager } from '../../../src/stream/redis/redis-stream-manager.js';
import type { StreamChunk, StreamChunkInput } from '../../../src/types/stream.js';
import { FaultProxy } from '../../support/fault-proxy.js';
import { startOwnRedisServer, type OwnRedisServer } from '../../support/redis-server.js';

// Real faults against a redis-server this file starts itself (AOF on, appendfsync always), never the shared one.
let server: OwnRedisServer;
const managers: RedisStreamManager[] = [];

beforeAll(async () => {
  server = await startOwnRedisServer('redis-faults');
});

afterAll(async () => {
  await Promise.all(managers.map((manager) => manager.close()));
  await server.destroy();
});

function manager(url = server.url, flushIntervalMs = 5): RedisStreamManager {
  const created = new RedisStreamManager({ url }, { keyPrefix: 'faults:', flushIntervalMs, retry: { budgetMs: 30_000, maxDelayMs: 200 } });
  managers.push(created);
  return created;
}

function chunk(delta: string): StreamChunkInput {
  return { type: 'text_delta', delta, agentId: 'agent-1', agentType: 'assistant', step: 1, timestamp: 1 };
}

const deltas = (chunks: StreamChunk[]): string[] => chunks.map((received) => (received.type === 'text_delta' ? received.delta : received.type));

async function readAll(streams: RedisStreamManager, id: string): Promise<StreamChunk[]> {
  const seen: StreamChunk[] = [];
  for await (const received of await streams.createReader(id)) seen.push(received);
  return seen;
}

describe('RedisStreamManager under real faults', () => {
  it('an append whose reply was lost is re-sent by ioredis after the reconnect and stored once', async () => {
    const proxy = await FaultProxy.start(server.port);
    try {
      const streams = manager(`redis://127.0.0.1:${proxy.port}`, 60_000);
      const id = `faults-${randomUUID()}`;
      const writer = await streams.createWriter(id, 'agent-1', 'assistant');
      await writer.write(chunk('a'));
      await writer.write(chunk('b'));
      await writer.flush();
      proxy.dropReplyTo('reply-lost-here');
      await writer.write(chunk('reply-lost-here'));
      await writer.flush();
      await writer.write(chunk('c'));
      await writer.close();
      await streams.endStream(id);
      expect(proxy.dropped).toBe(1);
      expect(proxy.markedRequests).toBeGreaterThanOrEqual(2); // the script ran, its reply was cut, the same batch went again
      const seen = await readAll(manager(), id);
      expect(deltas(seen)).toEqual(['a', 'b', 'reply-lost-here', 'c']);
      expect(seen.map((received) => received.sequence)).toEqual([1, 2, 3, 4]);
    } finally {
      await proxy.close();
    }
  });

  it('Redis stopped and restarted 4 times mid-stream: the writer retries, a live reader sees every chunk once, in order', async () => {
    const id = `faults-${randomUUID()}`;
    const readerSide = manager();
    const reading = readAll(readerSide, id);
    const streams = manager();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    const total = 400;
    const writing = (async () => {
      for (let index = 0; index < total; index += 1) {
        await writer.write(chunk(`c${index}`));
        if (index % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 4));
      }
      await writer.close();
    })();
    for (let outage = 0; outage < 4; outage += 1) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      await server.stop();
      await new Promise((resolve) => setTimeout(resolve, 400));
      await server.start();
    }
    await writing;
    await streams.endStream(id);
    const seen = await reading;
    expect(deltas(seen)).toEqual(Array.from({ length: total }, (_, index) => `c${index}`));
    expect(seen.map((received) => received.sequence)).toEqual(Array.from({ length: total }, (_, index) => index + 1));
    expect(await streams.getInfo(id)).toMatchObject({ status: 'ended', lastSequence: total, chunkCount: total });
  }, 60_000);
});

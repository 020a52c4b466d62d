import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
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
  const created = new RedisStreamManager({ url }, { batchSize: 3, keyPrefix: 'faults:', flushIntervalMs, retry: { budgetMs: 30_000, maxDelayMs: 200 } });
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

  it('Redis stopped and restarted 4 times mid-stream: 4 writers retry, a live reader sees every chunk once, in order', async () => {
    const id = `faults-${randomUUID()}`;
    const readerSide = manager();
    const reading = readAll(readerSide, id);
    const streams = manager();
    const perWriter = 150;
    const writeAll = async (agentId: string): Promise<void> => {
      const writer = await streams.createWriter(id, agentId, 'assistant');
      for (let index = 0; index < perWriter; index += 1) {
        await writer.write({ ...chunk(`${agentId}-${index}`), agentId });
        if (index % 5 === 4) await new Promise((resolve) => setTimeout(resolve, 2));
      }
      await writer.close();
    };
    const agents = ['w1', 'w2', 'w3', 'w4'];
    const writing = Promise.all(agents.map(writeAll));
    for (let outage = 0; outage < 4; outage += 1) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      await server.stop();
      await new Promise((resolve) => setTimeout(resolve, 400));
      await server.start();
    }
    await writing;
    await streams.endStream(id);
    const seen = await reading;
    const total = agents.length * perWriter;
    expect(seen.map((received) => received.sequence)).toEqual(Array.from({ length: total }, (_, index) => index + 1));
    for (const agentId of agents) {
      const own = seen.filter((received) => received.agentId === agentId);
      expect(deltas(own)).toEqual(Array.from({ length: perWriter }, (_, index) => `${agentId}-${index}`));
    }
    expect(await streams.getInfo(id)).toMatchObject({ status: 'ended', lastSequence: total, chunkCount: total });
  }, 60_000);

  it('every client connection killed again and again (CLIENT KILL) while 4 writers append: each chunk stored once, in order', async () => {
    const id = `faults-${randomUUID()}`;
    const streams = manager();
    const admin = new Redis(server.url);
    let writing = true;
    let kills = 0;
    const killing = (async () => {
      while (writing) {
        kills += Number(await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes'));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const perWriter = 100;
    const agents = ['k1', 'k2', 'k3', 'k4'];
    await Promise.all(
      agents.map(async (agentId) => {
        const writer = await streams.createWriter(id, agentId, 'assistant');
        for (let index = 0; index < perWriter; index += 1) await writer.write({ ...chunk(`${agentId}-${index}`), agentId });
        await writer.close();
      }),
    );
    writing = false;
    await killing;
    await admin.quit();
    expect(kills).toBeGreaterThan(3);
    await streams.endStream(id);
    const seen = await readAll(manager(), id);
    const total = agents.length * perWriter;
    expect(seen.map((received) => received.sequence)).toEqual(Array.from({ length: total }, (_, index) => index + 1));
    for (const agentId of agents) {
      expect(deltas(seen.filter((received) => received.agentId === agentId))).toEqual(Array.from({ length: perWriter }, (_, index) => `${agentId}-${index}`));
    }
  }, 60_000);
});

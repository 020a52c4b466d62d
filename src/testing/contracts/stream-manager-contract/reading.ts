import { expect, it } from 'vitest';
import type { StreamManager } from '../../../stream/stream-manager.js';
import type { StreamChunk } from '../../../types/stream.js';
import { PROMPT_WAKE_MS, collect, deltaOf, delay, newStreamId, range, textChunk, within, writeMany } from './helpers.js';

/**
 * Register the contract tests for sequencing, concurrent writers and readers (live, from a sequence,
 * reconnecting, 1,000 chunks). `create` returns a manager that the caller closes after each test.
 *
 * @example
 * describe('my manager', () => defineStreamReadingContract(() => createManager()));
 */
export function defineStreamReadingContract(create: () => Promise<StreamManager>): void {
  it('assigns sequences 1..n in write order and keeps chunk fields', async () => {
    const streams = await create();
    const id = newStreamId();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    for (let index = 0; index < 5; index += 1) await writer.write(textChunk(1, `d${index}`));
    await writer.flush();
    await streams.endStream(id);
    const chunks = await collect(await streams.createReader(id));
    expect(chunks.map((chunk) => chunk.sequence)).toEqual([1, 2, 3, 4, 5]);
    expect(chunks.map(deltaOf)).toEqual(['d0', 'd1', 'd2', 'd3', 'd4']);
    expect(chunks[0]).toMatchObject({ type: 'text_delta', agentId: 'agent-1', agentType: 'assistant', step: 1, timestamp: 1_700_000_000_000 });
  });

  it('gives concurrent writers contiguous, unique sequences and keeps each writer’s order', async () => {
    const streams = await create();
    const id = newStreamId();
    const parent = await streams.createWriter(id, 'parent', 'planner');
    const child = await streams.createWriter(id, 'child', 'researcher');
    await Promise.all([writeMany(parent, 'parent', 150), writeMany(child, 'child', 150)]);
    await Promise.all([parent.close(), child.close()]);
    await streams.endStream(id);
    const chunks = await collect(await streams.createReader(id));
    expect(chunks.map((chunk) => chunk.sequence)).toEqual(range(1, 300));
    for (const agentId of ['parent', 'child']) {
      const deltas = chunks.filter((chunk) => chunk.agentId === agentId).map(deltaOf);
      expect(deltas).toEqual(range(0, 149).map((index) => `${agentId}-${index}`));
    }
  });

  it('delivers chunks written after a reader started (even before the stream existed), in order', async () => {
    const streams = await create();
    const id = newStreamId();
    const reader = await streams.createReader(id);
    const iterator = reader[Symbol.asyncIterator]();
    const pending = iterator.next();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    await writer.write(textChunk(1, 'first'));
    await writer.flush();
    const first = await within(pending, 'the first live chunk', PROMPT_WAKE_MS);
    expect(first.done).toBe(false);
    expect(first.value).toMatchObject({ sequence: 1, delta: 'first' });
    for (let batch = 0; batch < 3; batch += 1) {
      for (let index = 0; index < 3; index += 1) await writer.write(textChunk(1, `live-${batch * 3 + index}`));
      await writer.flush();
      await delay(15);
    }
    await streams.endStream(id);
    const rest = await collect(iterator);
    expect(rest.map((chunk) => chunk.sequence)).toEqual(range(2, 10));
    expect(rest.map(deltaOf)).toEqual(range(0, 8).map((index) => `live-${index}`));
  });

  it('a reader from sequence k gets exactly the chunks after k, then live ones', async () => {
    const streams = await create();
    const id = newStreamId();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    for (let index = 1; index <= 10; index += 1) await writer.write(textChunk(1, `c${index}`));
    await writer.flush();
    const reader = await streams.createReader(id, 4);
    const iterator = reader[Symbol.asyncIterator]();
    const seen: StreamChunk[] = [];
    for (let index = 0; index < 6; index += 1) {
      const result = await within(iterator.next(), 'a stored chunk');
      if (!result.done) seen.push(result.value);
    }
    expect(seen.map((chunk) => chunk.sequence)).toEqual(range(5, 10));
    await writer.write(textChunk(1, 'c11'));
    await streams.endStream(id);
    const rest = await collect(iterator);
    expect(rest.map((chunk) => [chunk.sequence, deltaOf(chunk)])).toEqual([[11, 'c11']]);
    expect(await collect(await streams.createReader(id, 11))).toEqual([]);
  });

  it('a reader that reconnects from the last sequence it saw gets every chunk exactly once', async () => {
    const streams = await create();
    const id = newStreamId();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    const producing = (async () => {
      for (let index = 1; index <= 40; index += 1) {
        await writer.write(textChunk(1, `c${index}`));
        if (index % 4 === 0) {
          await writer.flush();
          await delay(5);
        }
      }
      await writer.close();
      await streams.endStream(id);
    })();
    const firstReader = await streams.createReader(id);
    const seen: StreamChunk[] = [];
    for await (const chunk of firstReader) {
      seen.push(chunk);
      if (chunk.sequence >= 7) break;
    }
    const lastSeen = seen.at(-1)?.sequence ?? 0;
    seen.push(...(await collect(await streams.createReader(id, lastSeen))));
    await producing;
    expect(seen.map((chunk) => chunk.sequence)).toEqual(range(1, 40));
    expect(seen.map(deltaOf)).toEqual(range(1, 40).map((index) => `c${index}`));
  });

  it('carries 1,000 chunks through one live reader with no loss, duplicate or reordering', async () => {
    const streams = await create();
    const id = newStreamId();
    const reader = await streams.createReader(id);
    const reading = collect(reader, 30_000);
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    for (let index = 1; index <= 1_000; index += 1) await writer.write(textChunk(1 + Math.floor(index / 100), `t${index}`));
    await writer.close();
    await streams.endStream(id, { tokens: 1_000 });
    const chunks = await reading;
    expect(chunks).toHaveLength(1_000);
    expect(chunks.map((chunk) => chunk.sequence)).toEqual(range(1, 1_000));
    expect(chunks.map(deltaOf)).toEqual(range(1, 1_000).map((index) => `t${index}`));
  });
}

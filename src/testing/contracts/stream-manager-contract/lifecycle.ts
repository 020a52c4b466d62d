import { expect, it } from 'vitest';
import { InvalidArgumentError, StreamError } from '../../../errors/index.js';
import type { StreamManager } from '../../../stream/stream-manager.js';
import type { StreamChunk, StreamChunkInput } from '../../../types/stream.js';
import { PROMPT_WAKE_MS, collect, deltaOf, delay, newStreamId, textChunk, within } from './helpers.js';

/**
 * Register the contract tests for the stream lifecycle: end, fail, getInfo, reactivate, cleanupToStep,
 * closed-stream writes and close. `create` returns a manager that the caller closes after each test.
 *
 * @example
 * describe('my manager', () => defineStreamLifecycleContract(() => createManager()));
 */
export function defineStreamLifecycleContract(create: () => Promise<StreamManager>): void {
  it('endStream completes waiting readers; a reader created after the end drains, then completes', async () => {
    const streams = await create();
    const id = newStreamId();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    await writer.write(textChunk(1, 'only'));
    await writer.flush();
    const iterator = (await streams.createReader(id, 1))[Symbol.asyncIterator]();
    const pending = iterator.next();
    await delay(20);
    await streams.endStream(id, { answer: 42 });
    expect(await within(pending, 'the reader to complete', PROMPT_WAKE_MS)).toEqual({ done: true, value: undefined });
    const late = await collect(await streams.createReader(id));
    expect(late.map(deltaOf)).toEqual(['only']);
    await streams.endStream(id, { answer: 'ignored' });
    expect(await streams.getInfo(id)).toMatchObject({ status: 'ended', output: { answer: 42 }, lastSequence: 1 });
  });

  it('endStream makes chunks written before it visible without an explicit flush', async () => {
    const streams = await create();
    const id = newStreamId();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    for (let index = 0; index < 3; index += 1) await writer.write(textChunk(2, `unflushed-${index}`));
    await streams.endStream(id);
    const chunks = await collect(await streams.createReader(id));
    expect(chunks.map(deltaOf)).toEqual(['unflushed-0', 'unflushed-1', 'unflushed-2']);
  });

  it('failStream completes readers and records the error', async () => {
    const streams = await create();
    const id = newStreamId();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    await writer.write(textChunk(1, 'before-failure'));
    await writer.flush();
    const iterator = (await streams.createReader(id))[Symbol.asyncIterator]();
    const first = await within(iterator.next(), 'the stored chunk');
    expect(first.value).toMatchObject({ sequence: 1 });
    const pending = iterator.next();
    await streams.failStream(id, 'LLM provider unavailable');
    expect(await within(pending, 'the reader to complete', PROMPT_WAKE_MS)).toEqual({ done: true, value: undefined });
    const info = await streams.getInfo(id);
    expect(info).toMatchObject({ status: 'failed', error: 'LLM provider unavailable', lastSequence: 1 });
    expect(info?.output).toBeUndefined();
    expect((await collect(await streams.createReader(id))).map(deltaOf)).toEqual(['before-failure']);
  });

  it('getInfo reports null for unknown streams, then status, last sequence, chunk count and times', async () => {
    const streams = await create();
    const id = newStreamId();
    expect(await streams.getInfo(id)).toBeNull();
    const before = Date.now();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    expect(await streams.getInfo(id)).toMatchObject({ streamId: id, status: 'active', lastSequence: 0, chunkCount: 0 });
    for (let index = 0; index < 3; index += 1) await writer.write(textChunk(1, `c${index}`));
    await writer.flush();
    const info = await streams.getInfo(id);
    expect(info).toMatchObject({ streamId: id, status: 'active', lastSequence: 3, chunkCount: 3 });
    expect(info?.output).toBeUndefined();
    expect(info?.error).toBeUndefined();
    expect(info?.createdAt).toBeGreaterThanOrEqual(before - 5_000);
    expect(info?.updatedAt).toBeGreaterThanOrEqual(info?.createdAt ?? Infinity);
    expect(info?.updatedAt).toBeLessThanOrEqual(Date.now() + 5_000);
  });

  it('reactivateStream reopens an ended stream: sequences continue, output is cleared', async () => {
    const streams = await create();
    const id = newStreamId();
    const firstRun = await streams.createWriter(id, 'agent-1', 'assistant');
    await firstRun.write(textChunk(1, 'turn-1a'));
    await firstRun.write(textChunk(1, 'turn-1b'));
    await firstRun.close();
    await streams.endStream(id, 'first answer');
    await streams.reactivateStream(id);
    const info = await streams.getInfo(id);
    expect(info).toMatchObject({ status: 'active', lastSequence: 2 });
    expect(info?.output).toBeUndefined();
    const reader = (await streams.createReader(id))[Symbol.asyncIterator]();
    const secondRun = await streams.createWriter(id, 'agent-1', 'assistant');
    await secondRun.write(textChunk(1, 'turn-2'));
    await secondRun.close();
    const seen: StreamChunk[] = [];
    for (let index = 0; index < 3; index += 1) {
      const result = await within(reader.next(), 'chunks of both turns');
      if (!result.done) seen.push(result.value);
    }
    expect(seen.map((chunk) => [chunk.sequence, deltaOf(chunk)])).toEqual([[1, 'turn-1a'], [2, 'turn-1b'], [3, 'turn-2']]);
    await streams.endStream(id);
    expect(await collect(reader)).toEqual([]);
    await expect(streams.reactivateStream(newStreamId())).rejects.toSatisfy(
      (error: unknown) => StreamError.isInstance(error) && error.code === 'STREAM_NOT_FOUND',
    );
  });

  it('cleanupToStep deletes later-step chunks (buffered ones too) and never reuses their sequences', async () => {
    const streams = await create();
    const id = newStreamId();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    for (const step of [1, 1, 2, 2]) await writer.write(textChunk(step, `step-${step}`));
    await writer.flush();
    await writer.write(textChunk(3, 'step-3-buffered'));
    await streams.cleanupToStep(id, 1);
    await writer.write(textChunk(2, 'step-2-retry'));
    await writer.close();
    await streams.endStream(id);
    const chunks = await collect(await streams.createReader(id));
    expect(chunks.map((chunk) => [chunk.sequence, chunk.step, deltaOf(chunk)])).toEqual([
      [1, 1, 'step-1'],
      [2, 1, 'step-1'],
      [6, 2, 'step-2-retry'],
    ]);
    expect(await streams.getInfo(id)).toMatchObject({ lastSequence: 6, chunkCount: 3 });
    const resumed = await collect(await streams.createReader(id, 2));
    expect(resumed.map((chunk) => chunk.sequence)).toEqual([6]);
  });

  it('cleanupToStep with afterSequence only touches chunks of the current run (steps restart per run)', async () => {
    const streams = await create();
    const id = newStreamId();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    for (const step of [1, 2, 3]) await writer.write(textChunk(step, `run1-step-${step}`));
    await writer.flush();
    const runTwoStart = 3;
    for (const step of [1, 2]) await writer.write(textChunk(step, `run2-step-${step}`));
    await streams.cleanupToStep(id, 1, { afterSequence: runTwoStart });
    await writer.close();
    await streams.endStream(id);
    const chunks = await collect(await streams.createReader(id));
    expect(chunks.map(deltaOf)).toEqual(['run1-step-1', 'run1-step-2', 'run1-step-3', 'run2-step-1']);
  });

  it("cleanupToStep with agentId deletes only that agent's chunks and keys (a root keeps its sub-agents' chunks)", async () => {
    const streams = await create();
    const id = newStreamId();
    const root = await streams.createWriter(id, 'agent-1', 'assistant');
    const child = await streams.createWriter(id, 'agent-2', 'assistant');
    await root.write(textChunk(1, 'root-1'));
    await root.write(textChunk(2, 'root-2'), { key: 'root-2' });
    await root.flush();
    await child.write({ ...textChunk(2, 'child-2'), agentId: 'agent-2' }, { key: 'child-2' });
    await child.write({ ...textChunk(3, 'child-3'), agentId: 'agent-2' });
    await child.flush();
    await streams.cleanupToStep(id, 1, { agentId: 'agent-1' });
    // The cleaned-up key is forgotten (a retried step writes it again); the other agent's key still de-duplicates.
    await root.write(textChunk(2, 'root-2'), { key: 'root-2' });
    await child.write({ ...textChunk(2, 'child-2'), agentId: 'agent-2' }, { key: 'child-2' });
    await Promise.all([root.close(), child.close()]);
    await streams.endStream(id);
    const chunks = await collect(await streams.createReader(id));
    expect(chunks.map((chunk) => [chunk.sequence, chunk.agentId, deltaOf(chunk)])).toEqual([
      [1, 'agent-1', 'root-1'],
      [3, 'agent-2', 'child-2'],
      [4, 'agent-2', 'child-3'],
      [5, 'agent-1', 'root-2'],
    ]);
  });

  it('writing to an ended stream throws StreamError STREAM_CLOSED and stores nothing', async () => {
    const streams = await create();
    const id = newStreamId();
    const early = await streams.createWriter(id, 'agent-1', 'assistant');
    await early.write(textChunk(1, 'kept'));
    await early.flush();
    await streams.endStream(id);
    const isClosed = (error: unknown): boolean => StreamError.isInstance(error) && error.code === 'STREAM_CLOSED';
    await expect(early.write(textChunk(1, 'rejected'))).rejects.toSatisfy(isClosed);
    const late = await streams.createWriter(id, 'agent-2', 'assistant');
    await expect(late.write(textChunk(1, 'rejected'))).rejects.toSatisfy(isClosed);
    await streams.failStream(id, 'ignored: already ended');
    expect(await streams.getInfo(id)).toMatchObject({ status: 'ended', lastSequence: 1, chunkCount: 1 });
    expect((await collect(await streams.createReader(id))).map(deltaOf)).toEqual(['kept']);
  });

  it('write rejects a chunk that is not JSON (BigInt) with InvalidArgumentError; the writer keeps working', async () => {
    const streams = await create();
    const id = newStreamId();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    await writer.write(textChunk(1, 'before'));
    const unserializable = { type: 'custom', eventName: 'usage', data: { tokens: 1n }, agentId: 'agent-1', agentType: 'assistant', step: 1, timestamp: 1 };
    await expect(writer.write(unserializable as StreamChunkInput)).rejects.toSatisfy((error: unknown) => InvalidArgumentError.isInstance(error));
    await writer.write(textChunk(1, 'after'));
    await writer.flush();
    await streams.endStream(id);
    expect((await collect(await streams.createReader(id))).map(deltaOf)).toEqual(['before', 'after']);
  });

  it('a chunk is captured at write(): mutating it afterwards changes nothing readers get', async () => {
    const streams = await create();
    const id = newStreamId();
    const writer = await streams.createWriter(id, 'agent-1', 'assistant');
    const data = { items: ['original'] };
    await writer.write({ type: 'custom', eventName: 'snapshot', data, agentId: 'agent-1', agentType: 'assistant', step: 1, timestamp: 1 });
    data.items.push('mutated after write');
    await streams.endStream(id);
    const [chunk] = await collect(await streams.createReader(id));
    expect(chunk).toMatchObject({ type: 'custom', data: { items: ['original'] } });
  });

  it('reader.close() resolves a pending next() as done; manager.close() completes open readers', async () => {
    const streams = await create();
    const id = newStreamId();
    const reader = await streams.createReader(id);
    const pending = reader[Symbol.asyncIterator]().next();
    await delay(20);
    await reader.close();
    expect(await within(pending, 'close to end the read')).toEqual({ done: true, value: undefined });
    const other = (await streams.createReader(newStreamId()))[Symbol.asyncIterator]();
    const otherPending = other.next();
    await delay(20);
    await streams.close();
    expect(await within(otherPending, 'manager close to end the read')).toEqual({ done: true, value: undefined });
  });
}

import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError, StoreError, StreamError } from '../../../src/errors/index.js';
import type { ChunkBatchSink } from '../../../src/stream/buffered-stream-writer.js';
import type { KeyedChunk } from '../../../src/stream/chunk-identity.js';
import type { StreamChunkInput } from '../../../src/types/stream.js';
import { testWriter } from '../../support/buffered-writer.js';

/** A sink that records batches in an array and fails on demand. */
class RecordingSink implements ChunkBatchSink {
  readonly batches: StreamChunkInput[][] = [];
  readonly attempts: string[][] = [];
  failures: Error[] = [];
  async append(_streamId: string, chunks: KeyedChunk[]): Promise<void> {
    await Promise.resolve();
    this.attempts.push(chunks.map((keyed) => keyed.key));
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
    this.batches.push(chunks.map((keyed) => keyed.chunk));
  }
  get deltas(): string[] {
    return this.batches.flat().map((chunk) => (chunk.type === 'text_delta' ? chunk.delta : chunk.type));
  }
}

function chunk(delta: string, step = 1): StreamChunkInput {
  return { type: 'text_delta', delta, agentId: 'agent-1', agentType: 'assistant', step, timestamp: 1 };
}

const writer = testWriter;

const isClosed = (error: unknown): boolean => StreamError.isInstance(error) && error.code === 'STREAM_CLOSED';

afterEach(() => {
  vi.useRealTimers();
});

describe('BufferedStreamWriter', () => {
  it('sends full batches as soon as batchSize chunks are buffered, keeping order', async () => {
    const sink = new RecordingSink();
    const subject = writer(sink, { flushIntervalMs: 60_000 });
    for (let index = 0; index < 7; index += 1) await subject.write(chunk(`c${index}`));
    expect(sink.batches.map((batch) => batch.length)).toEqual([3, 3]);
    await subject.flush();
    expect(sink.batches.map((batch) => batch.length)).toEqual([3, 3, 1]);
    expect(sink.deltas).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
  });

  it('flushes a partial batch after flushIntervalMs', async () => {
    vi.useFakeTimers();
    const sink = new RecordingSink();
    const subject = writer(sink, { flushIntervalMs: 50 });
    await subject.write(chunk('a'));
    await subject.write(chunk('b'));
    await vi.advanceTimersByTimeAsync(49);
    expect(sink.batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sink.deltas).toEqual(['a', 'b']);
  });

  it('fills in agent ids and drops a caller-set sequence; rejects chunks without a valid step', async () => {
    const sink = new RecordingSink();
    const subject = writer(sink);
    await subject.write({ ...chunk('x'), agentId: undefined, sequence: 99 } as unknown as StreamChunkInput);
    await subject.flush();
    expect(sink.batches[0]?.[0]).toEqual({ type: 'text_delta', delta: 'x', agentId: 'agent-1', agentType: 'assistant', step: 1, timestamp: 1 });
    await expect(subject.write(chunk('bad', -1))).rejects.toSatisfy((error: unknown) => InvalidArgumentError.isInstance(error));
    await expect(subject.write({ ...chunk('bad'), step: 1.5 })).rejects.toSatisfy((error: unknown) => InvalidArgumentError.isInstance(error));
  });

  it('once an append finds the stream closed: throws, drops the buffer, tells the manager, and rejects later writes', async () => {
    const sink = new RecordingSink();
    let closed = false;
    const onStreamClosed = vi.fn(() => (closed = true));
    const subject = writer(sink, { closedNotice: () => onStreamClosed, isStreamClosed: () => closed, flushIntervalMs: 60_000 });
    await subject.write(chunk('a'));
    sink.failures.push(new StreamError('STREAM_CLOSED', 's1', 'closed'));
    await expect(subject.flush()).rejects.toSatisfy(isClosed);
    expect(onStreamClosed).toHaveBeenCalledTimes(1);
    await expect(subject.write(chunk('b'))).rejects.toSatisfy(isClosed);
    await subject.flush();
    expect(sink.batches).toEqual([]);
  });

  it('rejects writes while the manager knows the stream is closed, and after close()', async () => {
    let closed = true;
    const onRelease = vi.fn();
    const subject = writer(new RecordingSink(), { isStreamClosed: () => closed, onRelease });
    await expect(subject.write(chunk('a'))).rejects.toSatisfy(isClosed);
    closed = false;
    await subject.close();
    await subject.close();
    expect(onRelease).toHaveBeenCalledTimes(1);
    await expect(subject.write(chunk('b'))).rejects.toSatisfy(isClosed);
  });

  it('re-sends a batch that failed transiently, with the same chunk keys, until it lands; flush resolves', async () => {
    const sink = new RecordingSink();
    const subject = writer(sink, { flushIntervalMs: 60_000 });
    await subject.write(chunk('a'));
    await subject.write(chunk('b'), { key: 'run-1:1:tool_start:call-1' });
    sink.failures.push(new Error('connection lost'), new Error('connection lost'));
    await subject.flush();
    await subject.write(chunk('c'));
    await subject.flush();
    expect(sink.deltas).toEqual(['a', 'b', 'c']);
    expect(sink.attempts).toHaveLength(4);
    expect(sink.attempts[1]).toEqual(sink.attempts[0]);
    expect(sink.attempts[2]).toEqual(sink.attempts[0]);
    expect(sink.attempts[0]?.[1]).toBe('k/run-1:1:tool_start:call-1');
    const ownKeys = [sink.attempts[0]?.[0], sink.attempts[3]?.[0]];
    expect(ownKeys.every((key) => /^w\/[A-Za-z0-9_-]{12}\/\d+$/.test(key ?? ''))).toBe(true);
    expect(new Set(ownKeys).size).toBe(2);
  });

  it('gives every writer its own identities, so two writers never share a key', async () => {
    const sink = new RecordingSink();
    const [first, second] = [writer(sink), writer(sink)];
    await first.write(chunk('a'));
    await second.write(chunk('b'));
    await Promise.all([first.flush(), second.flush()]);
    expect(new Set(sink.attempts.flat()).size).toBe(2);
    await expect(first.write(chunk('x'), { key: '' })).rejects.toSatisfy((error: unknown) => InvalidArgumentError.isInstance(error));
    await expect(first.write(chunk('x'), { key: 'k'.repeat(513) })).rejects.toSatisfy((error: unknown) => InvalidArgumentError.isInstance(error));
  });

  it('when transient failures outlast the budget: a retryable StoreError, the batch kept for the next flush', async () => {
    const sink = new RecordingSink();
    const subject = writer(sink, { flushIntervalMs: 60_000, retry: { budgetMs: 30, initialDelayMs: 5, maxDelayMs: 10 } });
    await subject.write(chunk('a'));
    sink.failures.push(...Array.from({ length: 50 }, () => new Error('connection lost')));
    const failure = await subject.flush().catch((error: unknown) => error);
    expect(StoreError.isRetryable(failure)).toBe(true);
    expect((failure as StoreError).data).toMatchObject({ operation: 'append stream chunks', condition: 'ECONNRESET', retryable: true });
    sink.failures.length = 0;
    await subject.flush();
    expect(sink.deltas).toEqual(['a']);
  });

  it('retries a transient background failure by itself', async () => {
    vi.useFakeTimers();
    const sink = new RecordingSink();
    const subject = writer(sink, { flushIntervalMs: 10 });
    sink.failures.push(new Error('connection lost'));
    await subject.write(chunk('a'));
    await vi.advanceTimersByTimeAsync(10);
    expect(sink.batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(20);
    expect(sink.deltas).toEqual(['a']);
    await subject.flush();
  });

  it('drops a batch that failed permanently and reports it once, on the next call, as a StoreError', async () => {
    vi.useFakeTimers();
    const sink = new RecordingSink();
    const subject = writer(sink, { flushIntervalMs: 10 });
    sink.failures.push(new Error('invalid json'));
    await subject.write(chunk('a'));
    await vi.advanceTimersByTimeAsync(10);
    const failure = await subject.write(chunk('b')).catch((error: unknown) => error);
    expect(StoreError.isInstance(failure)).toBe(true);
    expect((failure as StoreError).data).toEqual({ streamId: 's1', droppedChunks: 1, retryable: false });
    expect((failure as StoreError).message).not.toContain('invalid json');
    await subject.write(chunk('b'));
    await subject.flush();
    expect(sink.deltas).toEqual(['b']);
  });

  it('never runs two appends at once, even when flushes overlap', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const sink: ChunkBatchSink = {
      append: async () => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight -= 1;
      },
    };
    const subject = writer(sink, { batchSize: 2 });
    const writes: Promise<void>[] = [];
    for (let index = 0; index < 10; index += 1) writes.push(subject.write(chunk(`c${index}`)));
    await Promise.all([...writes, subject.flush(), subject.flush()]);
    await subject.close();
    expect(maxInFlight).toBe(1);
  });

  it('appends in one flush what was buffered when it began: chunks written during its append wait for their own flush', async () => {
    vi.useFakeTimers();
    let release!: () => void;
    const sink = new RecordingSink();
    const appended = sink.append.bind(sink);
    sink.append = async (streamId, chunks) => {
      if (sink.batches.length === 0) await new Promise<void>((resolve) => (release = resolve));
      return appended(streamId, chunks);
    };
    const subject = writer(sink, { flushIntervalMs: 50, batchSize: 10 });
    await subject.write(chunk('first'));
    const flushed = subject.flush();
    await vi.advanceTimersByTimeAsync(0);
    await subject.write(chunk('second'));
    await subject.write(chunk('third'));
    release();
    await flushed;
    expect(sink.batches.map((batch) => batch.length)).toEqual([1]);
    // Written meanwhile: appended by their own timer (or a step record's hand-over), not chased by the first flush.
    await vi.advanceTimersByTimeAsync(50);
    expect(sink.deltas).toEqual(['first', 'second', 'third']);
    expect(sink.batches.map((batch) => batch.length)).toEqual([1, 2]);
  });
});

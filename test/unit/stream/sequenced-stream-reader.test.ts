import { describe, expect, it, vi } from 'vitest';
import { StoreError } from '../../../src/errors/index.js';
import { noopLogger } from '../../../src/hooks/logger.js';
import { ChangeSignal } from '../../../src/stream/change-signal.js';
import { SequencedStreamReader, type ChunkPage, type ChunkSource } from '../../../src/stream/sequenced-stream-reader.js';
import type { StreamChunk, StreamStatus } from '../../../src/types/stream.js';

/** An array-backed source: `add` appends chunks, `setStatus` changes status, both wake waiters. */
class ArraySource implements ChunkSource {
  chunks: StreamChunk[] = [];
  status: StreamStatus | null = 'active';
  readonly signal = new ChangeSignal();
  failuresLeft = 0;
  reads = 0;
  released = 0;
  #seen = 0;
  async read(afterSequence: number): Promise<ChunkPage> {
    this.reads += 1;
    this.#seen = this.signal.version;
    if (this.failuresLeft > 0) {
      this.failuresLeft -= 1;
      throw Object.assign(new Error('connection reset: secret payload'), { code: 'ECONNRESET' });
    }
    return { status: this.status, chunks: this.chunks.filter((chunk) => chunk.sequence > afterSequence).slice(0, 2) };
  }
  waitForChange(_afterSequence: number, abort: AbortSignal): Promise<void> {
    return this.signal.waitBeyond(this.#seen, undefined, abort);
  }
  async release(): Promise<void> {
    this.released += 1;
  }
  add(...sequences: number[]): void {
    for (const sequence of sequences) {
      this.chunks.push({ type: 'text_delta', delta: `c${sequence}`, agentId: 'a', agentType: 't', step: 1, timestamp: 1, sequence });
    }
    this.signal.notify();
  }
  setStatus(status: StreamStatus): void {
    this.status = status;
    this.signal.notify();
  }
}

async function drain(reader: SequencedStreamReader): Promise<number[]> {
  const sequences: number[] = [];
  for await (const chunk of reader) sequences.push(chunk.sequence);
  return sequences;
}

describe('SequencedStreamReader', () => {
  it('pages through stored chunks, waits for live ones, and completes after draining an ended stream', async () => {
    const source = new ArraySource();
    source.add(1, 2, 3);
    const reader = new SequencedStreamReader(source, 0, { streamId: 's', logger: noopLogger });
    const reading = drain(reader);
    await new Promise((resolve) => setTimeout(resolve, 5));
    source.add(4, 5);
    source.add(6);
    source.status = 'ended'; // no wake-up of its own: the next read must still see the chunks, then the end
    source.add(7);
    expect(await reading).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(source.released).toBe(1);
  });

  it('yields nothing at or below the cursor, even if the source returns it again', async () => {
    const source = new ArraySource();
    source.add(1, 2, 3, 4);
    source.read = async () => ({ status: 'ended', chunks: source.chunks.slice(0, 3) });
    expect(await drain(new SequencedStreamReader(source, 2, { streamId: 's', logger: noopLogger }))).toEqual([3]);
  });

  it('serves concurrent next() calls one chunk each, in order', async () => {
    const source = new ArraySource();
    const reader = new SequencedStreamReader(source, 0, { streamId: 's', logger: noopLogger });
    const first = reader.next();
    const second = reader.next();
    source.add(1, 2);
    expect([(await first).value?.sequence, (await second).value?.sequence]).toEqual([1, 2]);
    await reader.close();
  });

  it('close() resolves a waiting next() as done, drops buffered chunks and releases the source once', async () => {
    const source = new ArraySource();
    const onClose = vi.fn();
    source.add(1, 2);
    const reader = new SequencedStreamReader(source, 0, { streamId: 's', logger: noopLogger, onClose });
    expect((await reader.next()).value?.sequence).toBe(1);
    await reader.close();
    expect(await reader.next()).toEqual({ done: true, value: undefined });
    const waiting = new SequencedStreamReader(source, 2, { streamId: 's', logger: noopLogger });
    const pending = waiting.next();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await Promise.all([waiting.close(), waiting.close()]);
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(source.released).toBe(2);
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('retries failed reads from the same position, logging without the error message', async () => {
    const source = new ArraySource();
    source.add(1, 2);
    source.failuresLeft = 2;
    source.status = 'ended';
    const warn = vi.fn();
    const reader = new SequencedStreamReader(source, 0, { streamId: 's', logger: { ...noopLogger, warn } });
    expect(await drain(reader)).toEqual([1, 2]);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(JSON.stringify(warn.mock.calls)).not.toContain('secret payload');
    expect(warn.mock.calls[0]?.[1]).toMatchObject({ streamId: 's', error: 'Error(ECONNRESET)' });
  });

  it('gives up after maxConsecutiveFailures with a StoreError naming the last sequence', async () => {
    const source = new ArraySource();
    source.failuresLeft = 10;
    const reader = new SequencedStreamReader(source, 7, { streamId: 's', logger: noopLogger, maxConsecutiveFailures: 3 });
    const failure = await reader.next().catch((error: unknown) => error);
    expect(StoreError.isInstance(failure)).toBe(true);
    expect((failure as StoreError).data).toEqual({ streamId: 's', lastSequence: 7, retryable: false });
    expect(source.reads).toBe(3);
    expect(source.released).toBe(1);
  });

  it('waits out transient read failures far beyond maxConsecutiveFailures, within the retry budget', async () => {
    const source = new ArraySource();
    source.add(1, 2);
    source.status = 'ended';
    source.failuresLeft = 30;
    const reader = new SequencedStreamReader(source, 0, {
      streamId: 's',
      logger: noopLogger,
      maxConsecutiveFailures: 3,
      classifyTransient: (error) => ((error as { code?: string }).code === 'ECONNRESET' ? 'ECONNRESET' : undefined),
      retry: { budgetMs: 5_000, initialDelayMs: 1, maxDelayMs: 2 },
    });
    expect(await drain(reader)).toEqual([1, 2]);
    expect(source.reads).toBeGreaterThan(30);
  });

  it('throws a retryable StoreError once transient failures outlast the budget', async () => {
    const source = new ArraySource();
    source.failuresLeft = 1_000;
    const reader = new SequencedStreamReader(source, 4, {
      streamId: 's',
      logger: noopLogger,
      classifyTransient: () => 'ECONNRESET',
      retry: { budgetMs: 40, initialDelayMs: 5, maxDelayMs: 10 },
    });
    const failure = await reader.next().catch((error: unknown) => error);
    expect(StoreError.isRetryable(failure)).toBe(true);
    expect((failure as StoreError).data).toMatchObject({ condition: 'ECONNRESET', streamId: 's', lastSequence: 4, retryable: true });
    expect(source.released).toBe(1);
  });
});

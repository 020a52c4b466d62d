import { describe, expect, it } from 'vitest';
import { StreamError } from '../../../src/errors/index.js';
import { noopLogger } from '../../../src/hooks/logger.js';
import type { BufferedStreamWriter, ChunkBatchSink } from '../../../src/stream/buffered-stream-writer.js';
import { BufferedWriterRegistry, type BufferedWriterSettings } from '../../../src/stream/buffered-writer-registry.js';
import type { KeyedChunk } from '../../../src/stream/chunk-identity.js';
import type { StreamChunkInput } from '../../../src/types/stream.js';

/** A sink whose next append waits until `answer` is called, then fails with STREAM_CLOSED or stores the batch. */
class HeldSink implements ChunkBatchSink {
  readonly stored: KeyedChunk[] = [];
  #answer: ((closed: boolean) => void) | undefined;
  readonly appending: Promise<void>;
  #started: () => void = () => undefined;
  constructor() {
    this.appending = new Promise((resolve) => (this.#started = resolve));
  }
  async append(streamId: string, chunks: KeyedChunk[]): Promise<void> {
    if (this.#answer === undefined && this.stored.length === 0) {
      const closed = await new Promise<boolean>((resolve) => {
        this.#answer = resolve;
        this.#started();
      });
      if (closed) throw new StreamError('STREAM_CLOSED', streamId, 'closed');
    }
    this.stored.push(...chunks);
  }
  get deltas(): string[] {
    return this.stored.map((keyed) => (keyed.chunk.type === 'text_delta' ? keyed.chunk.delta : ''));
  }
  answer(closed: boolean): void {
    this.#answer?.(closed);
  }
}

function settings(sink: ChunkBatchSink): BufferedWriterSettings {
  return { sink, batchSize: 100, flushIntervalMs: 60_000, classifyTransient: () => undefined, retry: { budgetMs: 100, initialDelayMs: 1, maxDelayMs: 1 } };
}

const chunk = (delta: string): StreamChunkInput => ({ type: 'text_delta', delta, agentId: 'a', agentType: 't', step: 1, timestamp: 1 });
const isClosed = (error: unknown): boolean => StreamError.isInstance(error) && error.code === 'STREAM_CLOSED';

/** A writer of stream `s1` whose flush of one chunk waits in the sink for its answer. */
async function appendInFlight(): Promise<{ sink: HeldSink; registry: BufferedWriterRegistry; old: BufferedStreamWriter; flushing: Promise<void> }> {
  const sink = new HeldSink();
  const registry = new BufferedWriterRegistry(noopLogger);
  const old = registry.open('s1', 'a', 't', false, settings(sink));
  await old.write(chunk('before'));
  const flushing = old.flush();
  await sink.appending;
  return { sink, registry, old, flushing };
}

describe('BufferedWriterRegistry: what a stream refusal teaches the other writers', () => {
  it.each([
    { case: 'the stream was not reactivated meanwhile: later writes are refused locally', reactivate: false, laterWrite: 'refused' },
    { case: 'the stream was reactivated while the append was in flight: its stale answer refuses nothing', reactivate: true, laterWrite: 'accepted' },
  ])('$case', async ({ reactivate, laterWrite }) => {
    const { sink, registry, old, flushing } = await appendInFlight();
    if (reactivate) {
      registry.setClosed('s1', true); // ended (e.g. a stuck run repaired) ...
      registry.setClosed('s1', false); // ... and reactivated by a retry, before the old append's answer arrives
    }
    sink.answer(true);
    await expect(flushing).rejects.toSatisfy(isClosed);
    const later = old.write(chunk('after')).then(() => old.flush());
    if (laterWrite === 'refused') await expect(later).rejects.toSatisfy(isClosed);
    else {
      await later;
      expect(sink.deltas).toEqual(['after']);
    }
  });

  it('a background append refused for a closed stream is not thrown at the next write once the stream was reactivated', async () => {
    const sink = new HeldSink();
    const registry = new BufferedWriterRegistry(noopLogger);
    const writer = registry.open('s1', 'a', 't', false, { ...settings(sink), flushIntervalMs: 1 });
    await writer.write(chunk('old run')); // flushed by the timer, in the background
    await sink.appending;
    sink.answer(true);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(writer.believesStreamClosed).toBe(true);
    registry.setClosed('s1', false); // reactivated for the next run, which reuses the writer
    await writer.write(chunk('next run'));
    await writer.flush();
    expect(sink.deltas).toEqual(['next run']);
  });

  it('a writer opened on a stream just read as active is not refused by an older append answering closed', async () => {
    const { sink, registry, flushing } = await appendInFlight();
    const fresh = registry.open('s1', 'b', 't', false, settings(sink));
    sink.answer(true);
    await expect(flushing).rejects.toSatisfy(isClosed);
    await fresh.write(chunk('fresh'));
    await fresh.flush();
    expect(sink.stored).toHaveLength(1);
  });
});

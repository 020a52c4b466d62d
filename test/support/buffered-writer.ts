import { noopLogger } from '../../src/hooks/logger.js';
import { BufferedStreamWriter, type BufferedStreamWriterOptions, type ChunkBatchSink } from '../../src/stream/buffered-stream-writer.js';

/**
 * A `BufferedStreamWriter` of stream `s1` (agent `agent-1`, type `assistant`) on `sink`, for unit tests: batches of 3
 * flushed every 10 ms, "connection lost" errors transient, a 1 s retry budget; `overrides` change any of it.
 *
 * @example
 * const subject = testWriter(sink, { flushIntervalMs: 60_000 });
 */
export function testWriter(sink: ChunkBatchSink, overrides: Partial<BufferedStreamWriterOptions> = {}): BufferedStreamWriter {
  return new BufferedStreamWriter(sink, {
    streamId: 's1',
    agentId: 'agent-1',
    agentType: 'assistant',
    batchSize: 3,
    flushIntervalMs: 10,
    logger: noopLogger,
    isStreamClosed: () => false,
    closedNotice: () => () => {},
    onRelease: () => {},
    classifyTransient: (error) => (error instanceof Error && error.message === 'connection lost' ? 'ECONNRESET' : undefined),
    retry: { budgetMs: 1_000, initialDelayMs: 5, maxDelayMs: 20 },
    ...overrides,
  });
}

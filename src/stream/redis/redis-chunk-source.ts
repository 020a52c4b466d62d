import type { Redis } from 'ioredis';
import type { Logger } from '../../hooks/types.js';
import type { StreamChunk, StreamStatus } from '../../types/stream.js';
import { describeError } from '../describe-error.js';
import type { ChunkPage, ChunkSource } from '../sequenced-stream-reader.js';
import type { RedisStreamKeys } from './redis-stream-keys.js';
import { StoreError } from '../../errors/index.js';

/**
 * Options of {@link RedisChunkSource}.
 *
 * @example
 * const options: RedisChunkSourceOptions = { keys: redisStreamKeys('helix:stream:', 's1'), readBatchSize: 500, blockTimeoutMs: 5_000, logger: noopLogger };
 */
export interface RedisChunkSourceOptions {
  keys: RedisStreamKeys;
  /** Chunks fetched per read. */
  readBatchSize: number;
  /** Longest XREAD BLOCK before re-reading anyway, in ms. */
  blockTimeoutMs: number;
  logger: Logger;
}

type StreamEntry = [id: string, fields: string[]];

/**
 * A reader's view of a Redis stream. `read` runs one MULTI (status, the control stream's last id, the next
 * chunks); `waitForChange` blocks in XREAD on the chunk and control streams from those positions, on a
 * connection of its own (duplicated from the shared client, closed by `release`).
 *
 * @example
 * const reader = new SequencedStreamReader(new RedisChunkSource(client, { keys, readBatchSize: 500, blockTimeoutMs: 5_000, logger }), 0, { streamId, logger });
 */
export class RedisChunkSource implements ChunkSource {
  readonly #client: Redis;
  readonly #options: RedisChunkSourceOptions;
  #blocking: Redis | undefined;
  #controlId = '0-0';
  #released = false;

  constructor(client: Redis, options: RedisChunkSourceOptions) {
    this.#client = client;
    this.#options = options;
  }

  async read(afterSequence: number): Promise<ChunkPage> {
    const { keys, readBatchSize } = this.#options;
    const replies = await this.#client
      .multi()
      .hget(keys.meta, 'status')
      .xrevrange(keys.control, '+', '-', 'COUNT', 1)
      .xrange(keys.chunks, `${afterSequence + 1}-0`, '+', 'COUNT', readBatchSize)
      .exec();
    if (replies === null) throw new StoreError('STORE_ERROR', 'Redis aborted the MULTI that reads the stream; the reader retries it.');
    for (const [error] of replies) if (error !== null) throw error;
    const status = replies[0]?.[1] as StreamStatus | null;
    const control = replies[1]?.[1] as StreamEntry[];
    const entries = replies[2]?.[1] as StreamEntry[];
    this.#controlId = control[0]?.[0] ?? '0-0';
    return { status, chunks: entries.map(toChunk) };
  }

  async waitForChange(afterSequence: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted || this.#released) return;
    const { keys, blockTimeoutMs } = this.#options;
    const connection = this.#blockingConnection();
    const onAbort = (): void => connection.disconnect();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await connection.xread('BLOCK', blockTimeoutMs, 'STREAMS', keys.chunks, keys.control, `${afterSequence}-0`, this.#controlId);
    } catch (error) {
      if (signal.aborted || this.#released) return;
      throw error;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  async release(): Promise<void> {
    this.#released = true;
    this.#blocking?.disconnect();
    this.#blocking = undefined;
  }

  #blockingConnection(): Redis {
    if (this.#blocking === undefined) {
      const connection = this.#client.duplicate();
      connection.on('error', (error: unknown) => {
        this.#options.logger.debug?.('stream reader connection error', { error: describeError(error) });
      });
      this.#blocking = connection;
    }
    return this.#blocking;
  }
}

function toChunk([id, fields]: StreamEntry): StreamChunk {
  let json = '{}';
  for (let index = 0; index < fields.length; index += 2) if (fields[index] === 'c') json = fields[index + 1] ?? '{}';
  return { ...(JSON.parse(json) as StreamChunk), sequence: Number(id.slice(0, id.indexOf('-'))) };
}

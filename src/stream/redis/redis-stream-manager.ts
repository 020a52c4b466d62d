import { Redis } from 'ioredis';
import { storeClosedError } from '../../database/store-closed.js';
import { resolveTransientRetry, retryTransient, type TransientRetryOptions, type TransientRetryPolicy } from '../../database/transient-retry.js';
import { HelixError, InvalidArgumentError, StoreError, StreamError } from '../../errors/index.js';
import { noopLogger } from '../../hooks/logger.js';
import type { Logger } from '../../hooks/types.js';
import type { StreamInfo, StreamStatus } from '../../types/stream.js';
import { BufferedWriterRegistry } from '../buffered-writer-registry.js';
import type { KeyedChunk } from '../chunk-identity.js';
import { positiveIntegerOption } from '../positive-integer-option.js';
import { describeError } from '../describe-error.js';
import { SequencedStreamReader } from '../sequenced-stream-reader.js';
import type { StreamManager, StreamReader, StreamWriter, CleanupOptions } from '../stream-manager.js';
import { guardStreamManagerArguments } from '../stream-manager-arguments.js';
import { isTerminalStatus } from '../stream-status.js';
import { RedisChunkSource } from './redis-chunk-source.js';
import { RedisEndHints, redisEndHintKey } from './redis-end-hints.js';
import { assertStreamId } from '../stream-id.js';
import { redisStreamKeys, type RedisStreamKeys } from './redis-stream-keys.js';
import {
  appendChunksScript,
  cleanupToStepScript,
  pruneChunksScript,
  finishStreamScript,
  openStreamScript,
  reactivateStreamScript,
} from './redis-stream-scripts.js';

/**
 * How {@link RedisStreamManager} reaches Redis: a URL (it owns the client and quits it on close) or your
 * ioredis client (left connected on close; each reader duplicates it for its blocking connection).
 *
 * @example
 * const connection: RedisStreamConnection = { url: 'redis://localhost:6379' };
 */
export type RedisStreamConnection = { url: string } | { client: Redis };

/**
 * Options of {@link RedisStreamManager}; every field is optional.
 *
 * @example
 * const options: RedisStreamManagerOptions = { keyPrefix: 'myapp:stream:', flushIntervalMs: 5, logger: consoleLogger };
 */
export interface RedisStreamManagerOptions {
  /** Prefix of every key. Default `helix:stream:`. */
  keyPrefix?: string;
  /** A writer flushes as soon as this many chunks are buffered. Default 100. */
  batchSize?: number;
  /** A writer flushes buffered chunks after this many milliseconds. Default 5. */
  flushIntervalMs?: number;
  /** Longest a reader blocks in XREAD before re-reading anyway. Default 5000. */
  blockTimeoutMs?: number;
  /** Chunks fetched per reader round trip. Default 500. */
  readBatchSize?: number;
  /** How long operations, flushes and readers wait out a Redis restart or dropped connection. Default: 3 minutes. */
  retry?: TransientRetryOptions;
  /** Default: `noopLogger`. */
  logger?: Logger;
}

/**
 * A {@link StreamManager} on Redis streams (ioredis), for production fan-out. Each chunk is a stream entry
 * with id `<sequence>-0`, appended by a Lua script that reserves sequences from the stream's meta hash, so
 * sequences stay contiguous across writers and processes. Readers block in XREAD on a connection of their
 * own (closed with the reader) and wake on new chunks and on end/fail.
 *
 * Writers buffer like the Postgres manager's: `write` throws StreamError(`STREAM_CLOSED`) once the stream
 * is known to be ended, and `endStream`, `failStream` and `cleanupToStep` first flush this manager's writers.
 * Appends are idempotent: the script skips chunks whose identity (writer id + counter, or the caller's
 * `key`) the stream holds, so a batch ioredis re-sends after a reconnect is stored once.
 * After `close()` every method throws StoreError (`data.condition` `'STORE_CLOSED'`) at once.
 *
 * @example
 * const streams = new RedisStreamManager({ url: process.env.REDIS_URL! });
 * const reader = await streams.createReader('s1', lastSeenSequence);
 * for await (const chunk of reader) send(chunk);
 */
export class RedisStreamManager implements StreamManager {
  readonly #client: Redis;
  readonly #ownsClient: boolean;
  readonly #keyPrefix: string;
  readonly #logger: Logger;
  readonly #batchSize: number;
  readonly #flushIntervalMs: number;
  readonly #blockTimeoutMs: number;
  readonly #readBatchSize: number;
  readonly #retry: TransientRetryPolicy;
  readonly #writers: BufferedWriterRegistry;
  readonly #readers = new Set<SequencedStreamReader>();
  readonly #endHints: RedisEndHints;
  #closing: Promise<void> | undefined;

  constructor(connection: RedisStreamConnection, options: RedisStreamManagerOptions = {}) {
    this.#logger = options.logger ?? noopLogger;
    this.#writers = new BufferedWriterRegistry(this.#logger);
    this.#ownsClient = 'url' in connection;
    this.#client = 'url' in connection ? new Redis(connection.url) : connection.client;
    if (this.#ownsClient) {
      this.#client.on('error', (error: unknown) => this.#logger.warn('stream redis connection error', { error: describeError(error) }));
    }
    this.#keyPrefix = options.keyPrefix ?? 'helix:stream:';
    this.#batchSize = positiveIntegerOption(options.batchSize ?? 100, 'batchSize');
    this.#flushIntervalMs = positiveIntegerOption(options.flushIntervalMs ?? 5, 'flushIntervalMs');
    this.#blockTimeoutMs = positiveIntegerOption(options.blockTimeoutMs ?? 5_000, 'blockTimeoutMs');
    this.#readBatchSize = positiveIntegerOption(options.readBatchSize ?? 500, 'readBatchSize');
    this.#retry = resolveTransientRetry(options.retry);
    this.#endHints = new RedisEndHints(this.#client, `${this.#keyPrefix}ended`, this.#logger);
  }

  /** Open (creating if needed) a stream for writing. */
  async createWriter(streamId: string, agentId: string, agentType: string): Promise<StreamWriter> {
    const status = await this.#run('open a stream', () => openStreamScript.run(this.#client, [this.#keys(streamId).meta], [Date.now()]));
    return this.#writers.open(streamId, agentId, agentType, isTerminalStatus(status as string | null), {
      sink: { append: (id, chunks) => this.#append(id, chunks) },
      batchSize: this.#batchSize,
      flushIntervalMs: this.#flushIntervalMs,
      classifyTransient: transientRedisCondition,
      retry: this.#retry,
    });
  }

  /** Read chunks after `fromSequence`, then live ones until the stream ends or fails. */
  async createReader(streamId: string, fromSequence = 0): Promise<StreamReader> {
    if (this.#closing !== undefined) throw storeClosedError('stream manager', 'read a stream');
    const source = new RedisChunkSource(this.#client, {
      keys: this.#keys(streamId),
      readBatchSize: this.#readBatchSize,
      blockTimeoutMs: this.#blockTimeoutMs,
      logger: this.#logger,
    });
    const reader: SequencedStreamReader = new SequencedStreamReader(source, fromSequence, {
      streamId,
      logger: this.#logger,
      classifyTransient: transientRedisCondition,
      retry: this.#retry,
      onClose: () => this.#readers.delete(reader),
    });
    this.#readers.add(reader);
    return reader;
  }

  /** Flush this manager's writers of the stream, then mark it ended (creating it when unknown). No-op when already ended/failed. */
  async endStream(streamId: string, output?: unknown): Promise<void> {
    const hasOutput = output !== undefined;
    await this.#finish(streamId, ['ended', Date.now(), hasOutput ? '1' : '0', hasOutput ? JSON.stringify(output) : '', '0', '']);
  }

  /** Flush this manager's writers of the stream, then mark it failed (creating it when unknown). No-op when already ended/failed. */
  async failStream(streamId: string, error: string): Promise<void> {
    await this.#finish(streamId, ['failed', Date.now(), '0', '', '1', error]);
  }

  /**
   * Set an ended or failed stream active again (output and error cleared; sequences continue).
   *
   * @throws StreamError `STREAM_NOT_FOUND` when the stream does not exist.
   */
  async reactivateStream(streamId: string): Promise<void> {
    const keys = this.#keys(streamId);
    const found = await this.#run('reactivate a stream', () => reactivateStreamScript.run(this.#client, [keys.meta, keys.control], [Date.now()]));
    if (found === 0) throw new StreamError('STREAM_NOT_FOUND', streamId, 'No stream with this id exists; create it with createWriter() first.');
    this.#writers.setClosed(streamId, false);
  }

  /** Status, last sequence and chunk count of a stream, or `null` when it does not exist. */
  async getInfo(streamId: string): Promise<StreamInfo | null> {
    const keys = this.#keys(streamId);
    const replies = await this.#run('read stream info', async () => {
      const result = await this.#client.multi().hgetall(keys.meta).xlen(keys.chunks).exec();
      if (result === null) throw new StoreError('STORE_ERROR', 'Redis aborted the MULTI that reads the stream info; call again.');
      for (const [error] of result) if (error !== null) throw error;
      return result;
    });
    const meta = replies[0]?.[1] as Record<string, string>;
    if (meta.status === undefined) return null;
    return {
      streamId,
      status: meta.status as StreamStatus,
      lastSequence: Number(meta.lastSequence ?? 0),
      chunkCount: Number(replies[1]?.[1] ?? 0),
      ...(meta.output === undefined ? {} : { output: JSON.parse(meta.output) as unknown }),
      ...(meta.error === undefined ? {} : { error: meta.error }),
      createdAt: Number(meta.createdAt ?? 0),
      updatedAt: Number(meta.updatedAt ?? meta.createdAt ?? 0),
    };
  }

  /** Flush this manager's writers of the stream, then delete chunks whose `step` exceeds `step`. */
  async cleanupToStep(streamId: string, step: number, options?: CleanupOptions): Promise<void> {
    if (!Number.isInteger(step)) throw new InvalidArgumentError('cleanupToStep needs an integer `step`.');
    await this.#writers.flushStream(streamId);
    const keys = this.#keys(streamId);
    await this.#run('clean up stream chunks', () => cleanupToStepScript.run(this.#client, [keys.chunks, keys.ids], [step, options?.afterSequence ?? 0, options?.agentId ?? '']));
  }

  async pruneChunks(streamId: string): Promise<number> {
    const keys = this.#keys(streamId);
    return Number(await this.#run('prune stream chunks', () => pruneChunksScript.run(this.#client, [keys.meta, keys.chunks, keys.ids], [])));
  }

  /**
   * Wakes `listener` when `streamId` ends or fails, in any process on this Redis: the script that ends it publishes on
   * the channel `<keyPrefix>ended`, heard on one pub/sub connection of this manager's (opened on first use).
   */
  onStreamEnd(streamId: string, listener: () => void): () => void {
    assertStreamId(streamId);
    return this.#endHints.subscribe(redisEndHintKey(streamId), listener);
  }

  /** Flush and release writers, complete readers (closing their connections), and quit the client if owned. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    await this.#writers.closeAll();
    await Promise.all([...this.#readers].map((reader) => reader.close()));
    await this.#endHints.close();
    if (this.#ownsClient) await this.#client.quit().catch(() => this.#client.disconnect());
  }

  /** One script call, as is: the writer retries it (same keys) and wraps what it gives up on. */
  async #append(streamId: string, chunks: KeyedChunk[]): Promise<void> {
    const keys = this.#keys(streamId);
    const args: (string | number)[] = [Date.now()];
    for (const { key, chunk } of chunks) args.push(chunk.step, JSON.stringify(chunk), key);
    const stored = await appendChunksScript.run(this.#client, [keys.meta, keys.chunks, keys.ids], args);
    if (stored === -1) {
      throw new StreamError('STREAM_CLOSED', streamId, 'The stream has ended or failed; reactivate it with reactivateStream() before writing.');
    }
  }

  async #finish(streamId: string, args: (string | number)[]): Promise<void> {
    await this.#writers.flushStream(streamId);
    const keys = this.#keys(streamId);
    // Idempotent: it only changes an active stream, so a re-sent call is a no-op.
    const hint = [`${this.#keyPrefix}ended`, redisEndHintKey(streamId)];
    await this.#run('finish a stream', () => finishStreamScript.run(this.#client, [keys.meta, keys.control], [...args, ...hint]));
    this.#writers.setClosed(streamId, true);
  }

  #keys(streamId: string): RedisStreamKeys {
    return redisStreamKeys(this.#keyPrefix, streamId);
  }

  /** Run an idempotent operation, waiting out transient errors; every failure leaves as a HelixError. */
  async #run<T>(operation: string, body: () => Promise<T>): Promise<T> {
    if (this.#closing !== undefined) throw storeClosedError('stream manager', operation);
    try {
      return await retryTransient(operation, body, { policy: this.#retry, classify: transientRedisCondition, logger: this.#logger });
    } catch (error) {
      if (error instanceof HelixError) throw error;
      throw new StoreError('STORE_ERROR', `Could not ${operation} (Redis error); see the cause.`, { cause: error, data: { operation } });
    }
  }

}

guardStreamManagerArguments(RedisStreamManager);

/**
 * The transient condition of a Redis error — a connection-level failure (`ECONNREFUSED`,
 * `MaxRetriesPerRequestError`…) or a "try again later" reply (`LOADING`, `BUSY`…) — else `undefined`.
 */
function transientRedisCondition(error: unknown): string | undefined {
  if (!(error instanceof Error) || HelixError.isInstance(error)) return undefined;
  if (error.name === 'ReplyError') return /^(LOADING|BUSY|TRYAGAIN|CLUSTERDOWN|MASTERDOWN|READONLY)/.exec(error.message)?.[1];
  if (error.name === 'MaxRetriesPerRequestError') return error.name;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : undefined; // ECONNREFUSED, ECONNRESET, EPIPE…
}

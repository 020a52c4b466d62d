import { StoreError, StreamError } from '../errors/index.js';
import type { Logger } from '../hooks/types.js';
import type { StreamChunkInput } from '../types/stream.js';
import { describeError } from './describe-error.js';
import { prepareChunk } from './prepare-chunk.js';
import type { StreamWriter } from './stream-manager.js';

/**
 * Where a {@link BufferedStreamWriter} sends its batches: one atomic append per call that reserves the next
 * `chunks.length` sequences of the stream and stores the chunks in order.
 *
 * @example
 * const sink: ChunkBatchSink = { append: async (streamId, chunks) => { await insertBatch(streamId, chunks); } };
 */
export interface ChunkBatchSink {
  /** Store `chunks` in order. Throws StreamError(`STREAM_CLOSED`) when the stream is ended or failed. */
  append(streamId: string, chunks: StreamChunkInput[]): Promise<void>;
}

/**
 * Options of {@link BufferedStreamWriter}; the callbacks connect it to its manager.
 *
 * @example
 * const options: BufferedStreamWriterOptions = { streamId: 's1', agentId: 'a', agentType: 't', batchSize: 100, flushIntervalMs: 10, logger: noopLogger, isStreamClosed: () => false, onStreamClosed() {}, onRelease() {}, isRetryable: () => false };
 */
export interface BufferedStreamWriterOptions {
  streamId: string;
  agentId: string;
  agentType: string;
  /** Flush as soon as this many chunks are buffered. */
  batchSize: number;
  /** Flush buffered chunks after this many milliseconds. */
  flushIntervalMs: number;
  logger: Logger;
  /** True while the manager knows the stream is ended/failed (checked by every `write`; a reactivation clears it). */
  isStreamClosed(): boolean;
  /** Called when an append finds the stream ended/failed: from then on `isStreamClosed()` must return true. */
  onStreamClosed(): void;
  /** Called once when the writer is closed. */
  onRelease(): void;
  /** True for transient errors (dropped connection): the batch is kept and retried. Others drop it. */
  isRetryable(error: unknown): boolean;
}

const MAX_RETRY_DELAY_MS = 1_000;

/**
 * A {@link StreamWriter} that buffers chunks and appends them in batches — every `flushIntervalMs` or every
 * `batchSize` chunks — one batch in flight at a time, so a writer's chunks keep their order.
 *
 * Errors: `write` throws StreamError(`STREAM_CLOSED`) once the stream is known to be ended or failed
 * (chunks buffered at that moment are dropped). A transient failure keeps the batch for the next flush; a
 * background failure that dropped chunks is thrown by the next `write`, `flush` or `close`.
 *
 * @example
 * const writer = new BufferedStreamWriter(sink, { streamId: 's1', agentId: 'a', agentType: 't', batchSize: 100, flushIntervalMs: 10, logger, isStreamClosed: () => false, onStreamClosed() {}, onRelease() {}, isRetryable: () => false });
 * await writer.write({ type: 'text_delta', delta: 'Hi', agentId: 'a', agentType: 't', step: 1, timestamp: Date.now() });
 * await writer.close();
 */
export class BufferedStreamWriter implements StreamWriter {
  readonly #sink: ChunkBatchSink;
  readonly #options: BufferedStreamWriterOptions;
  readonly #buffer: StreamChunkInput[] = [];
  #timer: NodeJS.Timeout | undefined;
  #retryDelayMs: number;
  #flushing: Promise<void> = Promise.resolve();
  #unreportedError: Error | undefined;
  #closing: Promise<void> | undefined;

  constructor(sink: ChunkBatchSink, options: BufferedStreamWriterOptions) {
    this.#sink = sink;
    this.#options = options;
    this.#retryDelayMs = options.flushIntervalMs;
  }

  /** The stream this writer appends to. */
  get streamId(): string {
    return this.#options.streamId;
  }

  /** Buffer a chunk; flushes (and waits for it) when the buffer reaches `batchSize`. */
  async write(chunk: StreamChunkInput): Promise<void> {
    if (this.#closing !== undefined) {
      throw new StreamError('STREAM_CLOSED', this.#options.streamId, 'This stream writer was closed; create a new one with createWriter().');
    }
    this.#throwUnreported();
    if (this.#options.isStreamClosed()) throw closedError(this.#options.streamId);
    this.#buffer.push(prepareChunk(chunk, this.#options.agentId, this.#options.agentType));
    if (this.#buffer.length >= this.#options.batchSize) await this.flush();
    else this.#schedule(this.#options.flushIntervalMs);
  }

  /** Append everything buffered so far; resolves once it is stored and visible to readers. */
  async flush(): Promise<void> {
    this.#clearTimer();
    const run = this.#flushing.then(() => this.#drain());
    this.#flushing = run.catch(() => undefined);
    await run;
    this.#throwUnreported();
  }

  /** Flush and release the writer (the stream stays open). Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.flush().finally(() => {
      this.#clearTimer();
      this.#options.onRelease();
    });
    return this.#closing;
  }

  async #drain(): Promise<void> {
    while (this.#buffer.length > 0) {
      const batch = this.#buffer.splice(0, this.#options.batchSize);
      try {
        await this.#sink.append(this.#options.streamId, batch);
        this.#retryDelayMs = this.#options.flushIntervalMs;
      } catch (error) {
        if (StreamError.isInstance(error) && error.code === 'STREAM_CLOSED') {
          this.#buffer.length = 0;
          this.#options.onStreamClosed();
          throw error;
        }
        if (this.#options.isRetryable(error)) {
          this.#buffer.unshift(...batch);
          throw error;
        }
        throw new StoreError('STORE_ERROR', 'Appending stream chunks failed and the batch was dropped; check the chunk payloads and the backend.', {
          cause: error,
          data: { streamId: this.#options.streamId, droppedChunks: batch.length },
        });
      }
    }
  }

  #schedule(delayMs: number): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush().catch((error: unknown) => this.#onBackgroundFailure(error));
    }, delayMs);
  }

  #onBackgroundFailure(error: unknown): void {
    if (StreamError.isInstance(error)) {
      this.#unreportedError ??= error;
      return;
    }
    this.#options.logger.warn('stream flush failed', { streamId: this.#options.streamId, error: describeError(error) });
    // A StoreError here means a batch was dropped: tell the next caller. Transient errors just retry.
    if (StoreError.isInstance(error)) this.#unreportedError ??= error;
    if (this.#buffer.length > 0 && this.#closing === undefined) {
      this.#retryDelayMs = Math.min(MAX_RETRY_DELAY_MS, this.#retryDelayMs * 2);
      this.#schedule(this.#retryDelayMs);
    }
  }

  #throwUnreported(): void {
    const error = this.#unreportedError;
    if (error === undefined) return;
    this.#unreportedError = undefined;
    throw error;
  }

  #clearTimer(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

function closedError(streamId: string): StreamError {
  return new StreamError('STREAM_CLOSED', streamId, 'The stream has ended or failed; reactivate it with reactivateStream() before writing.');
}

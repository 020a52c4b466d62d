import { exhaustedError, type TransientRetryPolicy } from '../database/transient-retry.js';
import { StoreError, StreamError } from '../errors/index.js';
import type { Logger } from '../hooks/types.js';
import type { StreamChunkInput } from '../types/stream.js';
import { ChunkIdentities, type KeyedChunk } from './chunk-identity.js';
import { appendOptions, type ChunkAppendOn, type ChunkBatchSink } from './chunk-sink.js';
import { closedError, isClosedStreamError, observingChecks } from './writer-checks.js';
import { describeError } from './describe-error.js';
import { prepareChunk } from './prepare-chunk.js';
import type { ChunkHandover } from './step-records.js';
import type { StreamWriteOptions, StreamWriter } from './stream-manager.js';

export type { ChunkAppendOn, ChunkAppendOptions, ChunkBatchSink, ChunkConnection } from './chunk-sink.js';

/**
 * Options of {@link BufferedStreamWriter}; the callbacks connect it to its manager.
 *
 * @example
 * const options: BufferedStreamWriterOptions = { streamId: 's1', agentId: 'a', agentType: 't', batchSize: 100, flushIntervalMs: 10, logger: noopLogger, isStreamClosed: () => false, closedNotice: () => () => {}, onRelease() {}, classifyTransient: () => undefined, retry: DEFAULT_TRANSIENT_RETRY };
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
  /**
   * Called as an append starts; what it returns is called when that append finds the stream ended/failed: from then
   * on `isStreamClosed()` returns true — unless the stream was reactivated after the append started (its answer is
   * then stale, and a later append must not be refused for it).
   */
  closedNotice(): () => void;
  /** Called once when the writer is closed. */
  onRelease(): void;
  /** The transient condition of an append error (dropped connection, restarting server), else `undefined`. */
  classifyTransient(error: unknown): string | undefined;
  /** How long a flush keeps re-sending a batch that fails transiently. */
  retry: TransientRetryPolicy;
}

/**
 * A {@link StreamWriter} that buffers chunks and appends them in batches — every `flushIntervalMs` or every
 * `batchSize` chunks — one batch in flight at a time, so a writer's chunks keep their order. Each chunk gets
 * its identity at `write()` (the caller's `key`, or the writer's id and a counter), and a batch that fails
 * transiently is re-sent with the same identities (capped exponential back-off, up to `retry.budgetMs`),
 * so a batch that landed before its connection dropped is not stored twice.
 *
 * Errors: `write` throws StreamError(`STREAM_CLOSED`) once the stream is known to be ended or failed
 * (chunks buffered at that moment are dropped). When transient failures outlast the budget the batch is
 * kept and a retryable StoreError is thrown; any other append failure drops the batch (StoreError, not
 * retryable). A background failure is thrown by the next `write`, `flush` or `close`.
 *
 * @example
 * const writer = new BufferedStreamWriter(sink, { streamId: 's1', agentId: 'a', agentType: 't', batchSize: 100, flushIntervalMs: 10, logger, isStreamClosed: () => false, closedNotice: () => () => {}, onRelease() {}, classifyTransient: () => undefined, retry: DEFAULT_TRANSIENT_RETRY });
 * await writer.write({ type: 'text_delta', delta: 'Hi', agentId: 'a', agentType: 't', step: 1, timestamp: Date.now() });
 * await writer.close();
 */
export class BufferedStreamWriter implements StreamWriter {
  readonly #sink: ChunkBatchSink;
  readonly #options: BufferedStreamWriterOptions;
  readonly #buffer: KeyedChunk[] = [];
  /** Chunks appended lazily: sent again with the next append that is not, until one commits. */
  #unconfirmed: KeyedChunk[] = [];
  readonly #identities = new ChunkIdentities();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #unreportedError: Error | undefined;
  #closing: Promise<void> | undefined;

  constructor(sink: ChunkBatchSink, options: BufferedStreamWriterOptions) {
    this.#sink = sink;
    this.#options = options;
  }

  /** The stream this writer appends to. */
  get streamId(): string {
    return this.#options.streamId;
  }

  /** The agent type this writer stamps on its chunks. */
  get agentType(): string {
    return this.#options.agentType;
  }

  /** True when this process knows the stream ended or failed (`write` refuses without asking the backend). */
  get believesStreamClosed(): boolean {
    return this.#options.isStreamClosed();
  }

  /** Buffer a chunk; flushes (and waits for it) when the buffer reaches `batchSize`. */
  async write(chunk: StreamChunkInput, options?: StreamWriteOptions): Promise<void> {
    if (this.#closing !== undefined) {
      throw new StreamError('STREAM_CLOSED', this.#options.streamId, 'This stream writer was closed; create a new one with createWriter().');
    }
    this.#throwUnreported();
    if (this.#options.isStreamClosed()) throw closedError(this.#options.streamId);
    const prepared = prepareChunk(chunk, this.#options.agentId, this.#options.agentType);
    const keyed: KeyedChunk = { key: this.#identities.next(options?.key), chunk: prepared };
    if (options?.patchesIn !== undefined) keyed.patchesIn = options.patchesIn;
    this.#buffer.push(keyed);
    if (this.#buffer.length >= this.#options.batchSize) await this.flush();
    else this.#schedule();
  }

  /** Append everything buffered so far; resolves once it is stored and visible to readers. */
  flush(): Promise<void> {
    return this.#flush(false);
  }

  /**
   * `flush`, except that the append may resolve before it is durable (the Postgres manager's commit does not wait for
   * its WAL flush): readers see the chunks sooner. The writer's next append that is not lazy (a flush, a step record's
   * hand-over, `close`) carries them again, so they are stored for good once it commits even if the lazy one was lost.
   */
  flushLazily(): Promise<void> {
    return this.#flush(this.#sink.appendsLazily === true);
  }

  async #flush(lazy: boolean): Promise<void> {
    this.#clearTimer();
    const run = this.#flushing.then(() => this.#drain(lazy));
    this.#flushing = run.catch(() => undefined);
    await run;
    this.#throwUnreported();
  }

  /**
   * Hand everything buffered so far to a transaction of the caller's (after the batch in flight, if any), appended
   * there by `appendOn` (the manager's append on a caller's connection): the chunks are stored when that transaction
   * commits. `undefined` when nothing is buffered.
   */
  async handOver(appendOn: ChunkAppendOn): Promise<ChunkHandover | undefined> {
    this.#clearTimer();
    await this.#flushing;
    this.#throwUnreported();
    if (this.#options.isStreamClosed()) throw closedError(this.#options.streamId);
    const carried = this.#unconfirmed;
    const fresh = this.#buffer.splice(0);
    const chunks = [...carried, ...fresh];
    if (chunks.length === 0) return undefined;
    const streamId = this.#options.streamId;
    return {
      committed: () => {
        if (this.#unconfirmed === carried) this.#unconfirmed = [];
      },
      within: async (connection) => {
        const closed = this.#options.closedNotice();
        const noticeClosed = (error: unknown): void => {
          if (isClosedStreamError(error)) closed();
        };
        try {
          await appendOn(observingChecks(connection, noticeClosed), streamId, chunks, carried.length);
        } catch (error) {
          noticeClosed(error);
          throw error;
        }
      },
      abandoned: () => {
        this.#buffer.unshift(...fresh);
        this.#schedule();
      },
    };
  }

  /** Flush and release the writer (the stream stays open). Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.flush().finally(() => {
      this.#clearTimer();
      this.#options.onRelease();
    });
    return this.#closing;
  }

  async #drain(lazy: boolean): Promise<void> {
    const started = Date.now();
    let delay = this.#options.retry.initialDelayMs;
    let attempts = 0;
    // What was buffered when the drain began: chunks written meanwhile wait for their own flush (their timer, the
    // batch size, or a step record's hand-over), so one flush is one append per batch, never a chase of new writes.
    let remaining = this.#buffer.length;
    // Chunks appended lazily go again with the first batch (alone when nothing is buffered) of an append that is not.
    while ((remaining > 0 && this.#buffer.length > 0) || (!lazy && this.#unconfirmed.length > 0)) {
      const fresh = this.#buffer.slice(0, Math.min(this.#options.batchSize, remaining));
      const carried = this.#unconfirmed;
      const batch = [...carried, ...fresh];
      const closed = this.#options.closedNotice();
      try {
        attempts += 1;
        await this.#sink.append(this.#options.streamId, batch, appendOptions(lazy, carried.length));
        this.#unconfirmed = lazy ? batch : [];
        this.#buffer.splice(0, fresh.length);
        remaining -= fresh.length;
        delay = this.#options.retry.initialDelayMs;
      } catch (error) {
        if (isClosedStreamError(error)) {
          this.#buffer.length = 0;
          this.#unconfirmed = [];
          closed();
          throw error;
        }
        const condition = this.#options.classifyTransient(error);
        if (condition === undefined) {
          this.#buffer.splice(0, fresh.length);
          this.#unconfirmed = [];
          throw new StoreError('STORE_ERROR', 'Appending stream chunks failed and the batch was dropped; check the chunk payloads and the backend.', {
            cause: error,
            data: { streamId: this.#options.streamId, droppedChunks: fresh.length },
          });
        }
        const elapsedMs = Date.now() - started;
        if (elapsedMs + delay > this.#options.retry.budgetMs) throw exhaustedError('append stream chunks', condition, attempts, elapsedMs, error);
        this.#options.logger.warn('stream append failed; retrying', { streamId: this.#options.streamId, error: describeError(error), delayMs: delay });
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(this.#options.retry.maxDelayMs, delay * 2);
      }
    }
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush().catch((error: unknown) => this.#onBackgroundFailure(error));
    }, this.#options.flushIntervalMs);
  }

  #onBackgroundFailure(error: unknown): void {
    if (!StreamError.isInstance(error)) {
      this.#options.logger.warn('stream flush failed', { streamId: this.#options.streamId, error: describeError(error) });
    }
    this.#unreportedError ??= error instanceof Error ? error : new Error('stream flush failed');
  }

  #throwUnreported(): void {
    const error = this.#unreportedError;
    if (error === undefined) return;
    this.#unreportedError = undefined;
    // A background append that found the stream closed is news only while it is: once the stream is reactivated
    // (a retry or the next turn reusing this writer), the refusal belongs to the run that wrote those chunks.
    if (isClosedStreamError(error) && !this.#options.isStreamClosed()) return;
    throw error;
  }

  #clearTimer(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

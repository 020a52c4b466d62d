import { exhaustedError, type TransientRetryPolicy } from '../database/transient-retry.js';
import { StoreError } from '../errors/index.js';
import type { Logger } from '../hooks/types.js';
import type { StreamChunk, StreamStatus } from '../types/stream.js';
import type { StreamReader } from './stream-manager.js';
import { describeError } from './describe-error.js';
import { isTerminalStatus } from './stream-status.js';

/**
 * What one read of a backend returns: the stream's status and the next chunks, oldest first.
 *
 * @example
 * const page: ChunkPage = { status: 'active', chunks: [] };
 */
export interface ChunkPage {
  /** `null` while the stream does not exist yet (a reader may wait for it to appear). */
  status: StreamStatus | null;
  /** Chunks with `sequence > afterSequence`, ascending; may be a prefix of what is available. */
  chunks: StreamChunk[];
}

/**
 * One reader's view of a backend. `read` must observe the status no later than the chunks, so that a
 * terminal status proves every chunk written before the end is in the page (or a later one).
 *
 * @example
 * const source: ChunkSource = { read: async () => ({ status: 'ended', chunks: [] }), waitForChange: async () => {}, release: async () => {} };
 */
export interface ChunkSource {
  /** Fetch the status and chunks after `afterSequence`. */
  read(afterSequence: number): Promise<ChunkPage>;
  /**
   * Wait until something may have changed since the last `read` began (or a poll interval passed, or
   * `signal` aborted). Spurious wake-ups are fine; missed ones are not.
   */
  waitForChange(afterSequence: number, signal: AbortSignal): Promise<void>;
  /** Free what the source holds (blocking connections, subscriptions). Called once. */
  release(): Promise<void>;
}

/**
 * Options of {@link SequencedStreamReader}.
 *
 * @example
 * const options: SequencedStreamReaderOptions = { streamId: 's1', logger: noopLogger, maxConsecutiveFailures: 20 };
 */
export interface SequencedStreamReaderOptions {
  streamId: string;
  logger: Logger;
  /** Called once when the reader closes (completion, `close()` or a fatal error). */
  onClose?: () => void;
  /** Consecutive failed reads tolerated (with back-off) before iteration throws, for non-transient errors. Default 20. */
  maxConsecutiveFailures?: number;
  /** The transient condition of a read error (restarting server, dropped connection), else `undefined`. */
  classifyTransient?: (error: unknown) => string | undefined;
  /** How long transient read failures are waited out (capped back-off) before iteration throws a retryable StoreError. */
  retry?: TransientRetryPolicy;
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * The reader every stream manager hands out: yields each chunk after `fromSequence` exactly once, in
 * sequence order, sleeping on its {@link ChunkSource} between reads, and completes after draining an ended
 * or failed stream. Read errors are retried with back-off from the last sequence: transient ones (a
 * restarting server, a dropped connection) for up to `retry.budgetMs`, others `maxConsecutiveFailures` times.
 *
 * @example
 * const reader = new SequencedStreamReader(source, 0, { streamId: 's1', logger });
 * for await (const chunk of reader) console.log(chunk.sequence);
 */
export class SequencedStreamReader implements StreamReader, AsyncIterator<StreamChunk, undefined> {
  readonly #source: ChunkSource;
  readonly #options: SequencedStreamReaderOptions;
  readonly #abort = new AbortController();
  readonly #buffer: StreamChunk[] = [];
  #cursor: number;
  #closed = false;
  #released: Promise<void> | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(source: ChunkSource, fromSequence: number, options: SequencedStreamReaderOptions) {
    this.#source = source;
    this.#cursor = fromSequence;
    this.#options = options;
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamChunk, undefined> {
    return this;
  }

  /** The next chunk, or `done` once the stream ended/failed and was drained, or the reader was closed. */
  next(): Promise<IteratorResult<StreamChunk, undefined>> {
    const result = this.#queue.then(() => this.#next());
    this.#queue = result.catch(() => undefined);
    return result;
  }

  /** Called by `for await … break`: closes the reader. */
  async return(): Promise<IteratorResult<StreamChunk, undefined>> {
    await this.close();
    return DONE;
  }

  /** Stop reading: a pending `next()` resolves `done`; buffered chunks are dropped. Idempotent. */
  close(): Promise<void> {
    if (this.#released !== undefined) return this.#released;
    this.#closed = true;
    this.#buffer.length = 0;
    this.#abort.abort();
    this.#options.onClose?.();
    this.#released = this.#source.release().catch((error: unknown) => {
      this.#options.logger.warn('stream reader release failed', { streamId: this.#options.streamId, error: describeError(error) });
    });
    return this.#released;
  }

  async #next(): Promise<IteratorResult<StreamChunk, undefined>> {
    const maxFailures = this.#options.maxConsecutiveFailures ?? 20;
    let failures = 0;
    let failingSince = 0;
    for (;;) {
      if (this.#closed) return DONE;
      const buffered = this.#buffer.shift();
      if (buffered !== undefined) return { done: false, value: buffered };
      try {
        const page = await this.#source.read(this.#cursor);
        failures = 0;
        if (this.#closed) return DONE;
        for (const chunk of page.chunks) {
          if (chunk.sequence <= this.#cursor) continue;
          this.#buffer.push(chunk);
          this.#cursor = chunk.sequence;
        }
        if (this.#buffer.length > 0) continue;
        if (isTerminalStatus(page.status)) {
          await this.close();
          return DONE;
        }
        await this.#source.waitForChange(this.#cursor, this.#abort.signal);
      } catch (error) {
        if (this.#closed) return DONE;
        failures += 1;
        if (failures === 1) failingSince = Date.now();
        const delayMs = Math.min(this.#options.retry?.maxDelayMs ?? 2_000, (this.#options.retry?.initialDelayMs ?? 50) * 2 ** failures);
        const fatal = this.#fatalError(error, failures, maxFailures, Date.now() - failingSince, delayMs);
        if (fatal !== undefined) {
          await this.close();
          throw fatal;
        }
        this.#options.logger.warn('stream read failed; retrying', {
          streamId: this.#options.streamId,
          attempt: failures,
          error: describeError(error),
        });
        await sleep(delayMs, this.#abort.signal);
      }
    }
  }

  /** The error to end iteration with, or `undefined` to keep retrying. */
  #fatalError(error: unknown, failures: number, maxFailures: number, elapsedMs: number, delayMs: number): StoreError | undefined {
    const condition = this.#options.classifyTransient?.(error);
    const retry = this.#options.retry;
    if (condition !== undefined && retry !== undefined) {
      if (elapsedMs + delayMs <= retry.budgetMs) return undefined;
      const exhausted = exhaustedError('read the stream', condition, failures, elapsedMs, error);
      Object.assign(exhausted.data ?? {}, { streamId: this.#options.streamId, lastSequence: this.#cursor });
      return exhausted;
    }
    if (failures < maxFailures) return undefined;
    return new StoreError('STORE_ERROR', 'Reading the stream failed repeatedly; check the connection, then open a new reader from the last sequence you received.', {
      cause: error,
      data: { streamId: this.#options.streamId, lastSequence: this.#cursor },
    });
  }
}

function sleep(milliseconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, milliseconds);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}


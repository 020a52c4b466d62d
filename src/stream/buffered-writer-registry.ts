import type { TransientRetryPolicy } from '../database/transient-retry.js';
import type { Logger } from '../hooks/types.js';
import { BufferedStreamWriter, type ChunkBatchSink } from './buffered-stream-writer.js';
import { describeError } from './describe-error.js';
import type { StreamWriter } from './stream-manager.js';

/**
 * What {@link BufferedWriterRegistry.open} needs besides the stream and agent ids.
 *
 * @example
 * const settings: BufferedWriterSettings = { sink, batchSize: 100, flushIntervalMs: 10, classifyTransient: transientPostgresCondition, retry: DEFAULT_TRANSIENT_RETRY };
 */
export interface BufferedWriterSettings {
  sink: ChunkBatchSink;
  batchSize: number;
  flushIntervalMs: number;
  classifyTransient(error: unknown): string | undefined;
  retry: TransientRetryPolicy;
}

interface LocalStream {
  writers: Set<BufferedStreamWriter>;
  /** This process knows the stream is ended or failed. */
  closed: boolean;
  /** Counts reactivations: an append that started before one cannot close the stream again. */
  epoch: number;
}

/**
 * The open {@link BufferedStreamWriter}s of one stream manager, grouped by stream, with what the manager
 * knows about each stream's status (so `write` can throw STREAM_CLOSED without a round trip). Entries are
 * dropped when a stream's last writer closes, so the registry stays as small as the set of open writers.
 *
 * @example
 * const writers = new BufferedWriterRegistry(logger);
 * const writer = writers.open('s1', 'agent-1', 'assistant', false, { sink, batchSize: 100, flushIntervalMs: 10, classifyTransient: () => undefined, retry: DEFAULT_TRANSIENT_RETRY });
 * await writers.flushStream('s1');
 */
export class BufferedWriterRegistry {
  readonly #streams = new Map<string, LocalStream>();
  /** Every writer this registry opened, closed ones included. */
  readonly #opened = new WeakSet<StreamWriter>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Create a writer for `streamId`; `closed` is the stream status just read from the backend. */
  open(streamId: string, agentId: string, agentType: string, closed: boolean, settings: BufferedWriterSettings): BufferedStreamWriter {
    const local = this.#streams.get(streamId) ?? { writers: new Set<BufferedStreamWriter>(), closed, epoch: 0 };
    this.#streams.set(streamId, local);
    learnStatus(local, closed); // the status just read is newer than any append in flight
    const writer: BufferedStreamWriter = new BufferedStreamWriter(settings.sink, {
      streamId,
      agentId,
      agentType,
      batchSize: settings.batchSize,
      flushIntervalMs: settings.flushIntervalMs,
      logger: this.#logger,
      classifyTransient: (error) => settings.classifyTransient(error),
      retry: settings.retry,
      isStreamClosed: () => local.closed,
      closedNotice: () => {
        const epoch = local.epoch;
        return () => {
          if (local.epoch === epoch) local.closed = true;
        };
      },
      onRelease: () => {
        local.writers.delete(writer);
        if (local.writers.size === 0 && this.#streams.get(streamId) === local) this.#streams.delete(streamId);
      },
    });
    local.writers.add(writer);
    this.#opened.add(writer);
    return writer;
  }

  /** Whether this registry opened `writer` (open or closed since). */
  opened(writer: StreamWriter): writer is BufferedStreamWriter {
    return this.#opened.has(writer);
  }

  /** Record that the stream was ended/failed (`true`) or reactivated (`false`) by this manager. */
  setClosed(streamId: string, closed: boolean): void {
    const local = this.#streams.get(streamId);
    if (local !== undefined) learnStatus(local, closed);
  }

  /** Flush every open writer of `streamId`; failures are logged, not thrown. */
  async flushStream(streamId: string): Promise<void> {
    await this.#settle([...(this.#streams.get(streamId)?.writers ?? [])], (writer) => writer.flush(), 'stream writer flush failed');
  }

  /** Flush and close every open writer; failures are logged, not thrown. */
  async closeAll(): Promise<void> {
    const writers = [...this.#streams.values()].flatMap((local) => [...local.writers]);
    await this.#settle(writers, (writer) => writer.close(), 'stream writer flush failed on close');
  }

  async #settle(writers: BufferedStreamWriter[], action: (writer: BufferedStreamWriter) => Promise<void>, message: string): Promise<void> {
    await Promise.all(
      writers.map((writer) =>
        action(writer).catch((error: unknown) => this.#logger.warn(message, { streamId: writer.streamId, error: describeError(error) })),
      ),
    );
  }
}

/** Take `closed` as the stream's status; an active one starts a new epoch (older appends can no longer close it). */
function learnStatus(local: LocalStream, closed: boolean): void {
  local.closed = closed;
  if (!closed) local.epoch += 1;
}

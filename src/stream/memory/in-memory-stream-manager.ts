import { StreamError } from '../../errors/index.js';
import { noopLogger } from '../../hooks/logger.js';
import type { Logger } from '../../hooks/types.js';
import type { StreamChunk, StreamChunkInput, StreamInfo, StreamStatus } from '../../types/stream.js';
import { ChangeSignal } from '../change-signal.js';
import { callerKey } from '../chunk-identity.js';
import { prepareChunk } from '../prepare-chunk.js';
import { SequencedStreamReader, type ChunkSource } from '../sequenced-stream-reader.js';
import type { StreamManager, StreamReader, StreamWriteOptions, StreamWriter, CleanupOptions } from '../stream-manager.js';
import { guardStreamManagerArguments } from '../stream-manager-arguments.js';
import { isTerminalStatus } from '../stream-status.js';
import { assertStreamId } from '../stream-id.js';
import { KeyedListeners } from '../keyed-listeners.js';

/**
 * Options of {@link InMemoryStreamManager}.
 *
 * @example
 * const streams = new InMemoryStreamManager({ logger: consoleLogger } satisfies InMemoryStreamManagerOptions);
 */
export interface InMemoryStreamManagerOptions {
  /** Default: `noopLogger`. */
  logger?: Logger;
}

interface MemoryStream {
  status: StreamStatus;
  lastSequence: number;
  chunks: StreamChunk[];
  /** Caller-supplied chunk keys of stored chunks → their sequence (writes apply at once, so only these can repeat). */
  keys: Map<string, number>;
  output?: unknown;
  error?: string;
  createdAt: number;
  updatedAt: number;
}

/**
 * A {@link StreamManager} that keeps streams in this process's memory: for tests and single-process
 * development. Writes are visible immediately; chunks are copied through JSON, as the durable managers do.
 *
 * @example
 * const streams = new InMemoryStreamManager();
 * const writer = await streams.createWriter('s1', 'agent-1', 'assistant');
 * await writer.write({ type: 'text_delta', delta: 'Hi', agentId: 'agent-1', agentType: 'assistant', step: 1, timestamp: Date.now() });
 * await streams.endStream('s1');
 */
export class InMemoryStreamManager implements StreamManager {
  readonly #streams = new Map<string, MemoryStream>();
  readonly #signals = new Map<string, ChangeSignal>();
  readonly #readers = new Set<SequencedStreamReader>();
  readonly #endListeners = new KeyedListeners();
  readonly #logger: Logger;

  constructor(options: InMemoryStreamManagerOptions = {}) {
    this.#logger = options.logger ?? noopLogger;
  }

  /** Open (creating if needed) a stream for writing; each `write` is stored and visible at once. */
  async createWriter(streamId: string, agentId: string, agentType: string): Promise<StreamWriter> {
    this.#open(streamId);
    let closed = false;
    return {
      write: async (chunk: StreamChunkInput, options?: StreamWriteOptions) => {
        if (closed) throw new StreamError('STREAM_CLOSED', streamId, 'This stream writer was closed; create a new one with createWriter().');
        const prepared = prepareChunk(chunk, agentId, agentType);
        const key = options?.key === undefined ? undefined : callerKey(options.key);
        const stream = this.#open(streamId);
        if (isTerminalStatus(stream.status)) throw closedError(streamId);
        if (key !== undefined && stream.keys.has(key)) return;
        stream.lastSequence += 1;
        if (key !== undefined) stream.keys.set(key, stream.lastSequence);
        const stored = { ...(JSON.parse(JSON.stringify(prepared)) as StreamChunkInput), sequence: stream.lastSequence };
        stream.chunks.push(stored);
        stream.updatedAt = Date.now();
        this.#signal(streamId).notify();
      },
      flush: async () => {},
      close: async () => {
        closed = true;
      },
    };
  }

  /** Read chunks after `fromSequence`, then live ones until the stream ends or fails. */
  async createReader(streamId: string, fromSequence = 0): Promise<StreamReader> {
    const signal = this.#signal(streamId);
    let seenVersion = signal.version;
    const source: ChunkSource = {
      read: async (afterSequence) => {
        seenVersion = signal.version;
        const stream = this.#streams.get(streamId);
        if (stream === undefined) return { status: null, chunks: [] };
        const start = firstIndexAfter(stream.chunks, afterSequence);
        return { status: stream.status, chunks: stream.chunks.slice(start, start + 500).map((chunk) => structuredClone(chunk)) };
      },
      waitForChange: (_afterSequence, abortSignal) => signal.waitBeyond(seenVersion, undefined, abortSignal),
      release: async () => {},
    };
    const reader: SequencedStreamReader = new SequencedStreamReader(source, fromSequence, {
      streamId,
      logger: this.#logger,
      onClose: () => this.#readers.delete(reader),
    });
    this.#readers.add(reader);
    return reader;
  }

  /** Mark the stream ended (creating it when unknown); a no-op when already ended or failed. */
  async endStream(streamId: string, output?: unknown): Promise<void> {
    this.#finish(streamId, (stream) => {
      stream.status = 'ended';
      if (output !== undefined) stream.output = JSON.parse(JSON.stringify(output)) as unknown;
    });
  }

  /** Mark the stream failed (creating it when unknown); a no-op when already ended or failed. */
  async failStream(streamId: string, error: string): Promise<void> {
    this.#finish(streamId, (stream) => {
      stream.status = 'failed';
      stream.error = error;
    });
  }

  /**
   * Set an ended or failed stream active again (output and error are cleared; sequences continue).
   *
   * @throws StreamError `STREAM_NOT_FOUND` when the stream does not exist.
   */
  async reactivateStream(streamId: string): Promise<void> {
    const stream = this.#streams.get(streamId);
    if (stream === undefined) throw notFoundError(streamId);
    stream.status = 'active';
    delete stream.output;
    delete stream.error;
    stream.updatedAt = Date.now();
    this.#signal(streamId).notify();
  }

  /** Status, last sequence and chunk count of a stream, or `null` when it does not exist. */
  async getInfo(streamId: string): Promise<StreamInfo | null> {
    const stream = this.#streams.get(streamId);
    if (stream === undefined) return null;
    return {
      streamId,
      status: stream.status,
      lastSequence: stream.lastSequence,
      chunkCount: stream.chunks.length,
      ...(stream.output === undefined ? {} : { output: structuredClone(stream.output) }),
      ...(stream.error === undefined ? {} : { error: stream.error }),
      createdAt: stream.createdAt,
      updatedAt: stream.updatedAt,
    };
  }

  /** Delete the chunks (of `options.agentId` when given) whose `step` is greater than `step`; sequences are not reused. */
  async cleanupToStep(streamId: string, step: number, options?: CleanupOptions): Promise<void> {
    const stream = this.#streams.get(streamId);
    if (stream === undefined) return;
    const after = options?.afterSequence ?? 0;
    const agentId = options?.agentId;
    stream.chunks = stream.chunks.filter((chunk) => chunk.step <= step || chunk.sequence <= after || (agentId !== undefined && chunk.agentId !== agentId));
    const kept = new Set(stream.chunks.map((chunk) => chunk.sequence));
    for (const [key, sequence] of stream.keys) if (!kept.has(sequence)) stream.keys.delete(key);
    stream.updatedAt = Date.now();
  }

  async pruneChunks(streamId: string): Promise<number> {
    const stream = this.#streams.get(streamId);
    if (stream === undefined || stream.status === 'active') return 0;
    const deleted = stream.chunks.length;
    stream.chunks = [];
    stream.keys.clear();
    stream.updatedAt = Date.now();
    return deleted;
  }

  /** Complete every open reader. Stored streams stay readable by new readers. */
  async close(): Promise<void> {
    await Promise.all([...this.#readers].map((reader) => reader.close()));
  }

  #open(streamId: string): MemoryStream {
    let stream = this.#streams.get(streamId);
    if (stream === undefined) {
      const now = Date.now();
      stream = { status: 'active', lastSequence: 0, chunks: [], keys: new Map(), createdAt: now, updatedAt: now };
      this.#streams.set(streamId, stream);
    }
    return stream;
  }

  /** Calls `listener` each time `streamId` ends or fails (in this process: the only one that sees this stream). */
  onStreamEnd(streamId: string, listener: () => void): () => void {
    assertStreamId(streamId);
    return this.#endListeners.add(streamId, listener);
  }

  #finish(streamId: string, apply: (stream: MemoryStream) => void): void {
    const stream = this.#open(streamId);
    if (isTerminalStatus(stream.status)) return;
    apply(stream);
    stream.updatedAt = Date.now();
    this.#signal(streamId).notify();
    this.#endListeners.call(streamId);
  }

  #signal(streamId: string): ChangeSignal {
    let signal = this.#signals.get(streamId);
    if (signal === undefined) {
      signal = new ChangeSignal();
      this.#signals.set(streamId, signal);
    }
    return signal;
  }
}

guardStreamManagerArguments(InMemoryStreamManager);

/** Index of the first chunk whose sequence exceeds `afterSequence` (chunks are sorted by sequence). */
function firstIndexAfter(chunks: StreamChunk[], afterSequence: number): number {
  let low = 0;
  let high = chunks.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((chunks[middle]?.sequence ?? Infinity) <= afterSequence) low = middle + 1;
    else high = middle;
  }
  return low;
}

function closedError(streamId: string): StreamError {
  return new StreamError('STREAM_CLOSED', streamId, 'The stream has ended or failed; reactivate it with reactivateStream() before writing.');
}

function notFoundError(streamId: string): StreamError {
  return new StreamError('STREAM_NOT_FOUND', streamId, 'No stream with this id exists; create it with createWriter() first.');
}

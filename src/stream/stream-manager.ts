import type { StreamChunk, StreamChunkInput, StreamInfo } from '../types/stream.js';
import type { StreamManagerStepRecords } from './step-records.js';

/**
 * Options of `cleanupToStep`. `afterSequence` limits the cleanup to chunks written after that sequence —
 * the current run's chunks in a multi-run session stream, whose step numbers restart every run. `agentId`
 * limits it to that agent's chunks: a root's stream also holds its sub-agents' chunks, numbered by their own
 * steps, which a retried root step must keep.
 *
 * @example
 * await streams.cleanupToStep('s1', 2, { afterSequence: run.startSequence, agentId: 's1' });
 */
export interface CleanupOptions {
  afterSequence?: number;
  agentId?: string;
}

/**
 * Options of {@link StreamWriter.write}.
 *
 * @example
 * await writer.write(chunk, { key: `${runId}:${step}:tool_start:${toolCallId}` } satisfies StreamWriteOptions);
 */
export interface StreamWriteOptions {
  /**
   * The chunk's identity in its stream (1–512 bytes): while the stream holds a chunk written with this key,
   * writing it again (from any writer or process, e.g. a step re-run after a crash) stores nothing. A
   * `cleanupToStep` that deletes the chunk forgets its key. Without a key, the writer gives the chunk an
   * identity of its own, so a batch retried after a dropped connection is still stored once.
   */
  key?: string;
  /**
   * @internal Set by the runtime on a `state_patch` chunk whose patches the named checkpoint of the chunk's agent
   * (session) holds, committed in the same transaction. A manager that stores chunks next to that checkpoint
   * (`PostgresStreamManager`, same schema, appending inside that transaction) may store a reference instead of the
   * patches, which its readers put back; every other manager stores the chunk as it is.
   */
  patchesIn?: string;
}

/**
 * Appends chunks to one stream. Writes may be buffered; `flush()` resolves once every chunk written so far
 * is durable and visible to readers. Sequences are assigned in write order, per stream, across writers.
 * Appends are idempotent: every chunk carries a writer-side identity (see {@link StreamWriteOptions}), and
 * a chunk whose identity the stream already holds is not stored again, so readers never see a repeat.
 *
 * @example
 * const writer = await streams.createWriter(sessionId, agentId, 'assistant');
 * await writer.write({ type: 'text_delta', delta: 'Hi', agentId, agentType: 'assistant', step: 1, timestamp: Date.now() });
 * await writer.close(); // flushes
 */
export interface StreamWriter {
  /** Queue a chunk; resolves once it is accepted (not necessarily flushed). Throws StreamError(STREAM_CLOSED) on an ended stream. */
  write(chunk: StreamChunkInput, options?: StreamWriteOptions): Promise<void>;
  /** Make everything written so far durable and visible. */
  flush(): Promise<void>;
  /** Flush and release the writer (does not end the stream). */
  close(): Promise<void>;
}

/**
 * Reads one stream from a position: yields every chunk with `sequence > fromSequence`, in order, exactly
 * once, then waits live for new ones until the stream ends or fails; then iteration completes (a failed
 * stream's error is in `getInfo(streamId).error`; runtimes also write an `error` chunk before failing it).
 *
 * @example
 * const reader = await streams.createReader(sessionId, lastEventId);
 * for await (const chunk of reader) response.write(`id: ${chunk.sequence}\ndata: ${JSON.stringify(chunk)}\n\n`);
 */
export interface StreamReader extends AsyncIterable<StreamChunk> {
  /** Stop reading; a pending `next()` resolves `done`. */
  close(): Promise<void>;
}

/**
 * Real-time transport for agent events. Chunks of a session's runs (and its sub-agents) flow into one
 * stream; readers resume from the last sequence they saw, like SSE `Last-Event-ID`.
 *
 * Implementations: `InMemoryStreamManager` (single process), `PostgresStreamManager` (embedded default),
 * `RedisStreamManager` (ioredis streams).
 *
 * @example
 * const writer = await streams.createWriter('s1', 'agent-1', 'assistant');
 * await writer.write({ type: 'text_delta', delta: 'Hi', agentId: 'agent-1', agentType: 'assistant', step: 1, timestamp: Date.now() });
 * await writer.flush();
 * for await (const chunk of await streams.createReader('s1')) console.log(chunk.sequence, chunk.type);
 */
export interface StreamManager {
  /**
   * Open (creating if needed) a stream for writing. Reopens nothing: writing to an ended stream throws.
   * Stream ids are 1–1,024 bytes of UTF-8 without control characters or lone surrogates, agent ids (here and in
   * `cleanupToStep`) 1–2,048 bytes by the same rules (InvalidArgumentError `INVALID_ARGUMENT` otherwise, for every
   * method, before the backend is touched: `guardStreamManagerArguments`).
   */
  createWriter(streamId: string, agentId: string, agentType: string): Promise<StreamWriter>;
  /** Read chunks after `fromSequence` (default 0: from the start). Works for unknown streams that appear later. */
  createReader(streamId: string, fromSequence?: number): Promise<StreamReader>;
  /**
   * Mark the stream ended (readers finish after draining). Idempotent: a no-op on an ended or failed stream
   * (the first output/error is kept). An unknown stream is created already ended, so waiting readers finish.
   */
  endStream(streamId: string, output?: unknown): Promise<void>;
  /** Mark the stream failed with a short, payload-free message. Same rules as `endStream`. */
  failStream(streamId: string, error: string): Promise<void>;
  /**
   * Set an ended or failed stream back to active so a new run can write (sequences continue; output and
   * error are cleared). Throws StreamError(`STREAM_NOT_FOUND`) for an unknown stream.
   */
  reactivateStream(streamId: string): Promise<void>;
  /**
   * Retention: delete every chunk of an ended or failed stream and keep its record (status, last sequence, output), so
   * a later reactivation continues the sequence. An active or unknown stream is left alone. Returns the chunks deleted.
   */
  pruneChunks(streamId: string): Promise<number>;
  /** Status, last sequence, chunk count, output/error and times of a stream; `null` when it does not exist. */
  getInfo(streamId: string): Promise<StreamInfo | null>;
  /**
   * Delete chunks whose `step` is greater than `step` (partial output of a retried step), of one agent when
   * `options.agentId` is given. Sequences are never reused.
   */
  cleanupToStep(streamId: string, step: number, options?: CleanupOptions): Promise<void>;
  /** Flush and release writers and connections; open readers complete. Idempotent. */
  close(): Promise<void>;
  /**
   * Call `listener` when `streamId` may have ended or failed, by a write of any process (a hint to look again, never
   * the only way to learn of it: a notification can be lost). Returns the unsubscribe. Optional: without it, the handles
   * of runs that other processes run (queued runs) poll for their end more often.
   */
  onStreamEnd?(streamId: string, listener: () => void): () => void;
  /**
   * Declared by a manager that can append inside a caller's Postgres transaction (`PostgresStreamManager`): the fused
   * journal then commits a step's last chunks in the step's record transaction when the manager is on DBOS's system
   * database. A manager without it (in-memory, Redis) flushes on its own. One object for the manager's lifetime.
   */
  readonly stepRecords?: StreamManagerStepRecords;
}

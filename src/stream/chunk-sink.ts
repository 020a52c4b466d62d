import type { SendAheadConnection } from '../database/send-ahead.js';
import type { KeyedChunk } from './chunk-identity.js';

/**
 * Where a {@link BufferedStreamWriter} sends its batches: one atomic append per call that skips the chunks
 * whose key the stream already holds, reserves the next sequences for the others and stores them in order.
 * A batch re-sent after a failure carries the same keys, so an append that did land the first time (the
 * connection dropped before its reply) stores nothing the second time.
 *
 * @example
 * const sink: ChunkBatchSink = { append: async (streamId, chunks) => { await insertNewKeys(streamId, chunks); } };
 */
export interface ChunkBatchSink {
  /** Store the chunks whose keys are new, in order. Throws StreamError(`STREAM_CLOSED`) when the stream is ended or failed. */
  append(streamId: string, chunks: KeyedChunk[], options?: ChunkAppendOptions): Promise<void>;
  /** Whether `append` honours `lazy` (else a lazy flush is a flush). */
  readonly appendsLazily?: boolean;
}

/**
 * How a batch is appended: `lazy`, its commit need not wait until it is durable (a Postgres append's WAL flush);
 * `resent`, its first chunks were appended lazily before, and come again so that this append stores them for good when
 * that one was lost (their keys skip them otherwise).
 *
 * @example
 * const options: ChunkAppendOptions = { lazy: true };
 */
export interface ChunkAppendOptions {
  lazy?: boolean;
  resent?: number;
}

/**
 * A sink's append on a caller's connection, inside its transaction (what `BufferedStreamWriter.handOver` hands over;
 * its manager's `stepRecords` gives it).
 *
 * @example
 * const appendOn: ChunkAppendOn = (connection, streamId, chunks, resent) => appendChunks(connection, streamId, chunks, { resent });
 */
export type ChunkAppendOn = (connection: ChunkConnection, streamId: string, chunks: KeyedChunk[], resent: number) => Promise<void>;

/**
 * A connection a {@link ChunkBatchSink} can append on (a pg client inside the caller's transaction).
 *
 * @example
 * const connection: ChunkConnection = poolClient;
 */
export interface ChunkConnection extends Partial<SendAheadConnection> {
  query(text: string, values?: unknown[]): Promise<{ rowCount: number | null }>;
}

/**
 * How a drain appends its batch: lazily or not, with how many chunks of an earlier lazy append first.
 *
 * @example
 * appendOptions(false, 1); // { resent: 1 }
 */
export function appendOptions(lazy: boolean, resent: number): ChunkAppendOptions {
  return { ...(lazy ? { lazy } : {}), ...(resent > 0 ? { resent } : {}) };
}

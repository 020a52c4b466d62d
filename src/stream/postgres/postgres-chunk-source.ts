import type pg from 'pg';
import type { StreamChunk, StreamStatus } from '../../types/stream.js';
import { ChangeSignal } from '../change-signal.js';
import type { ChunkSource } from '../sequenced-stream-reader.js';
import { HandedChunkMailbox, type HandedBatch, type HandedChunkRoutes } from './handed-chunks.js';
import type { PostgresNotificationListener } from './postgres-notification-listener.js';
import { streamNotificationKey, type PostgresStreamStatements } from './postgres-stream-statements.js';
import { chunksFromStored } from './stored-chunk.js';
import { preparedStatements } from '../../database/named-statements.js';

/**
 * What a Postgres reader's {@link ChunkSource} is built from: its manager's pool, statements, LISTEN connection and
 * routes of committed rows, the stream and the manager's reading options.
 *
 * @example
 * const parts: PostgresChunkSourceParts = { pool, sql, listener, routes, streamId: 's1', readBatchSize: 500, pollIntervalMs: 1_000 };
 */
export interface PostgresChunkSourceParts {
  pool: pg.Pool;
  sql: PostgresStreamStatements;
  listener: PostgresNotificationListener;
  routes: HandedChunkRoutes;
  streamId: string;
  readBatchSize: number;
  pollIntervalMs: number;
}

/**
 * A Postgres reader's source: it reads the stream's status and next chunks in one statement, and sleeps on the
 * manager's LISTEN connection (or this process's writes) between reads. Rows this process's writers committed to the
 * stream (a step record's or a flush's) and handed to it (`HandedChunkRoutes`) are taken instead of that statement
 * when they are exactly the next ones (see `HandedChunkMailbox.take`); the read after them is the statement again,
 * which sees the status.
 *
 * @example
 * const reader = new SequencedStreamReader(postgresChunkSource(parts), 0, { streamId: 's1', logger });
 */
export function postgresChunkSource(parts: PostgresChunkSourceParts): ChunkSource {
  const { pool, sql, streamId } = parts;
  const signal = new ChangeSignal();
  const unsubscribe = parts.listener.subscribe(streamNotificationKey(streamId), () => signal.notify());
  const mailbox = new HandedChunkMailbox(parts.readBatchSize);
  const unroute = parts.routes.subscribe(streamId, mailbox);
  let seenVersion = signal.version;
  return {
    read: async (afterSequence) => {
      seenVersion = signal.version;
      const handed = await handedChunks(mailbox, afterSequence);
      // Its chunks come first, so the reader looks at no status before reading again.
      if (handed !== undefined) return { status: 'active', chunks: handed };
      const result = await preparedStatements(pool).query<{
        status: StreamStatus | null;
        agent_type: string | null;
        sequence: string | null;
        step: number | null;
        chunk: string | null;
        patches: string | null;
      }>(sql.read, [streamId, afterSequence, parts.readBatchSize]);
      const chunks: StreamChunk[] = [];
      for (const row of result.rows) {
        if (row.chunk !== null && row.sequence !== null)
          chunks.push(...chunksFromStored(row.chunk, streamId, Number(row.step), Number(row.sequence), row.patches, row.agent_type));
      }
      return { status: result.rows[0]?.status ?? null, chunks };
    },
    waitForChange: (_afterSequence, abortSignal) => signal.waitBeyond(seenVersion, parts.pollIntervalMs, abortSignal),
    release: async () => {
      unroute();
      unsubscribe();
    },
  };
}

/**
 * How long a read waits for a pending batch that may hold its next rows to settle before it reads the database: a
 * step record's transaction that appended them holds the stream's lock (nothing else commits meanwhile) and is about
 * to commit or roll back; a flush on the pool is about to be answered (its NOTIFY may wake the reader first). This
 * bounds a settlement that never comes (a record refused without a word to its writes). Waits seen: ~0.15 ms p50.
 */
const PENDING_WAIT_MS = 50;

/** The chunks handed to `mailbox` that come after `afterSequence`, waiting for a pending batch of them; else `undefined`. */
async function handedChunks(mailbox: HandedChunkMailbox, afterSequence: number): Promise<StreamChunk[] | undefined> {
  const handed = mailbox.take(afterSequence);
  if (handed === undefined) return undefined;
  if ('chunks' in handed) return handed.chunks;
  if (!(await settledWithin(handed.pending, PENDING_WAIT_MS))) mailbox.forget(handed.pending);
  const settled = mailbox.take(afterSequence);
  return settled !== undefined && 'chunks' in settled ? settled.chunks : undefined;
}

/** Whether `batch` settled within `milliseconds`. */
async function settledWithin(batch: HandedBatch, milliseconds: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), milliseconds)));
  try {
    return await Promise.race([batch.settled.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

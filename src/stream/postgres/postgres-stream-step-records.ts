import type pg from 'pg';
import { databaseFingerprint } from '../../database/database-fingerprint.js';
import { runPostgresOperation, withStoreErrors } from '../../database/postgres-operation.js';
import { canSendAhead, isRefusedByError, writeAhead } from '../../database/send-ahead.js';
import type { TransientRetryPolicy } from '../../database/transient-retry.js';
import { InvalidArgumentError, StreamError } from '../../errors/index.js';
import type { Logger } from '../../hooks/types.js';
import type { ChunkAppendOptions, ChunkConnection } from '../buffered-stream-writer.js';
import type { BufferedWriterRegistry } from '../buffered-writer-registry.js';
import type { KeyedChunk } from '../chunk-identity.js';
import type { StreamManagerStepRecords } from '../step-records.js';
import { assertStreamId } from '../stream-id.js';
import { closedError } from '../writer-checks.js';
import { committedRows, type AppendAnswer, type CommittedRows } from './committed-rows.js';
import type { HandedBatch } from './handed-chunks.js';
import type { PostgresStreamStatements } from './postgres-stream-statements.js';
import { storedRows, type StoredRowFolds } from './stored-chunk.js';

/**
 * Append `chunks` to `streamId` on `connection` in one statement, as is (a writer retries it with the same keys and
 * wraps what it gives up on). `folds`: inside a step record's transaction, where a `state_patch` chunk may refer to
 * the checkpoint that commits with it, and a call's `tool_start` may share its `tool_end`'s row when that record is
 * the step's own (see `StoredRowFolds`). On a connection that sends ahead (a pipelined step record), the statement
 * goes out unread and fails (22012) when the stream is not active.
 *
 * `stored`, when given, learns the rows as readers will read them once the append commits (see `committedRows`;
 * `undefined` when that is not known exactly), once the statement is answered. `options.lazy`: on a connection outside
 * any transaction, the append's commit does not wait for its WAL flush (`appendLazily`); `options.resent`: that many
 * leading chunks were appended lazily before (skipped by their keys when the stream holds them).
 *
 * @throws StreamError `STREAM_CLOSED` when the stream is ended or failed.
 * @example
 * await appendChunks(statements, pool, 's1', chunks, { withCheckpoint: false }, 'assistant');
 */
export async function appendChunks(
  sql: PostgresStreamStatements,
  connection: ChunkConnection,
  streamId: string,
  chunks: KeyedChunk[],
  folds: StoredRowFolds,
  agentType: string,
  stored?: (committed: CommittedRows | undefined) => void,
  options: ChunkAppendOptions = {},
): Promise<void> {
  const rows = storedRows(chunks, streamId, folds, agentType);
  const values = [streamId, rows.texts, sql.channel, rows.keys, rows.steps, rows.widths, agentType, rows.elided, rows.startKeys, rows.alone];
  const closed = (): StreamError => closedError(streamId);
  const check = (result: { rowCount: number | null; rows?: unknown[] }): void => {
    if (result.rowCount === 0) throw closed();
    stored?.(committedRows(streamId, rows, result.rows?.[0] as AppendAnswer | undefined, agentType, options.resent));
  };
  if (canSendAhead(connection)) return connection.sendAhead(sql.appendOrFail, values, check, (error) => (isRefusedByError(error) ? closed() : error));
  check(await connection.query(options.lazy === true ? sql.appendLazily : sql.append, values));
}

/**
 * What `PostgresStreamManager.stepRecords` is built from: the manager's pool, schema, statements and writers.
 *
 * @example
 * const parts: PostgresStreamStepRecordParts = { pool, schema: 'public', sql, writers, retry, logger };
 */
export interface PostgresStreamStepRecordParts {
  pool: pg.Pool;
  schema: string;
  sql: PostgresStreamStatements;
  writers: BufferedWriterRegistry;
  retry: TransientRetryPolicy;
  logger: Logger;
  /** Wake this process's readers of a stream (a write to it committed). */
  announce(streamId: string): void;
  /** Hand rows a step record appended to this process's readers of their stream (pending until it commits). */
  pend(committed: CommittedRows): HandedBatch;
}

/**
 * `PostgresStreamManager.stepRecords`: the database and schema the manager writes to, and its writers' buffered
 * chunks handed to a step record's transaction (appended there with {@link appendChunks}).
 *
 * @example
 * this.stepRecords = postgresStreamStepRecords({ pool, schema, sql, writers, retry, logger });
 */
export function postgresStreamStepRecords(parts: PostgresStreamStepRecordParts): StreamManagerStepRecords {
  return {
    schema: () => parts.schema,
    databaseFingerprint: () => runPostgresOperation('name the database', () => databaseFingerprint(parts.pool), { retry: parts.retry, logger: parts.logger }),
    handOver: async (writer, options) => {
      if (!parts.writers.opened(writer)) {
        throw new InvalidArgumentError('handOver takes a writer of this stream manager (one its createWriter returned).');
      }
      const agentType = writer.agentType;
      const folds = { withCheckpoint: true, pairsTools: options?.neverRewritten === true };
      // The rows the last attempt of the caller's transaction appended, handed to this process's readers of the stream.
      let handed: HandedBatch | undefined;
      const handover = await writer.handOver((connection, streamId, chunks, resent) => {
        const pend = (committed: CommittedRows | undefined): void => {
          handed?.discard();
          handed = committed === undefined ? undefined : parts.pend(committed);
        };
        pend(undefined);
        return appendChunks(parts.sql, connection, streamId, chunks, folds, agentType, pend, { resent });
      });
      if (handover === undefined) return undefined;
      const abandoned = (): void => {
        handed?.discard();
        handover.abandoned();
      };
      const committed = (): void => {
        handover.committed?.();
        handed?.commit();
        parts.announce(writer.streamId);
      };
      return { ...handover, abandoned, committed };
    },
    openStreamOn: async (connection, streamId, agentType) => {
      assertStreamId(streamId);
      await withStoreErrors('open a stream', () => writeAhead(connection, parts.sql.open, [streamId, agentType]), parts.logger);
    },
    reactivateStreamOn: async (connection, streamId) => {
      assertStreamId(streamId);
      const onCommitted = (): void => parts.writers.setClosed(streamId, false);
      const values = [streamId, parts.sql.channel];
      // Nothing reads its answer: sent ahead on a pipelined transaction, where a missing stream refuses by error (its
      // failure, in its place, is the transaction's: reported before any later statement's).
      if (canSendAhead(connection)) {
        const missing = (error: unknown): unknown => (isRefusedByError(error) ? streamNotFoundError(streamId) : error);
        await withStoreErrors('reactivate a stream', () => connection.sendAhead(parts.sql.reactivateOrFail, values, () => undefined, missing), parts.logger);
        return { onCommitted };
      }
      const reactivated = await withStoreErrors('reactivate a stream', () => connection.query(parts.sql.reactivate, values), parts.logger);
      if (reactivated.rowCount === 0) throw streamNotFoundError(streamId);
      return { onCommitted };
    },
    endStreamOn: async (connection, streamId, output) => {
      assertStreamId(streamId);
      const finished = output === undefined ? null : JSON.stringify(output);
      // Idempotent: it only changes an active stream (the caller's transaction retries it whole). Nothing reads its
      // answer: sent ahead on a pipelined transaction (a finish's next write does not wait for it).
      const values = [streamId, 'ended', finished, null, parts.sql.channel];
      await withStoreErrors('end a stream', () => writeAhead(connection, parts.sql.finish, values), parts.logger);
      return {
        onCommitted: () => {
          parts.writers.setClosed(streamId, true);
          parts.announce(streamId);
        },
      };
    },
  };
}

/**
 * The refusal of a reactivation of a stream that does not exist.
 *
 * @example
 * if (result.rowCount === 0) throw streamNotFoundError(streamId);
 */
export function streamNotFoundError(streamId: string): StreamError {
  return new StreamError('STREAM_NOT_FOUND', streamId, 'No stream with this id exists; create it with createWriter() first.');
}

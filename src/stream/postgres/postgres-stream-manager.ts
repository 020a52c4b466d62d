import pg from 'pg';
import { runPostgresOperation } from '../../database/postgres-operation.js';
import { storeClosedError } from '../../database/store-closed.js';
import { transientPostgresCondition } from '../../database/transient-postgres-error.js';
import { resolveTransientRetry, retryTransient, type TransientRetryOptions, type TransientRetryPolicy } from '../../database/transient-retry.js';
import { InvalidArgumentError } from '../../errors/index.js';
import { noopLogger } from '../../hooks/logger.js';
import type { Logger } from '../../hooks/types.js';
import { runMigrations } from '../../store/index.js';
import type { StreamInfo, StreamStatus } from '../../types/stream.js';
import { BufferedWriterRegistry } from '../buffered-writer-registry.js';
import type { KeyedChunk } from '../chunk-identity.js';
import type { ChunkAppendOptions } from '../buffered-stream-writer.js';
import { positiveIntegerOption } from '../positive-integer-option.js';
import { describeError } from '../describe-error.js';
import { SequencedStreamReader } from '../sequenced-stream-reader.js';
import type { StreamManager, StreamReader, StreamWriter, CleanupOptions } from '../stream-manager.js';
import { guardStreamManagerArguments } from '../stream-manager-arguments.js';
import type { StreamManagerStepRecords } from '../step-records.js';
import { isTerminalStatus } from '../stream-status.js';
import type { CommittedRows } from './committed-rows.js';
import { HandedChunkRoutes, type HandedBatch } from './handed-chunks.js';
import { postgresChunkSource } from './postgres-chunk-source.js';
import { PostgresNotificationListener } from './postgres-notification-listener.js';
import { postgresStreamStatements, streamEndNotificationKey, streamNotificationKey, type PostgresStreamStatements } from './postgres-stream-statements.js';
import { assertStreamId } from '../stream-id.js';
import { appendChunks, postgresStreamStepRecords, streamNotFoundError } from './postgres-stream-step-records.js';
import { preparedStatements } from '../../database/named-statements.js';

/**
 * How {@link PostgresStreamManager} reaches Postgres: a connection string (it owns a pool and ends it on
 * close) or your pool (left open; one of its connections is held for LISTEN while readers exist). `{}`
 * uses the PG* environment variables.
 *
 * @example
 * const connection: PostgresStreamConnection = { connectionString: 'postgres://localhost/app' };
 */
export type PostgresStreamConnection = { connectionString: string } | { pool?: pg.Pool };

/**
 * Options of {@link PostgresStreamManager}; every field is optional.
 *
 * @example
 * const options: PostgresStreamManagerOptions = { schema: 'helix', batchSize: 100, flushIntervalMs: 10, logger: consoleLogger };
 */
export interface PostgresStreamManagerOptions {
  /** Schema holding `__agents_streams` and `__agents_stream_chunks`. Default `public`. */
  schema?: string;
  /** A writer flushes as soon as this many chunks are buffered. Default 100. */
  batchSize?: number;
  /** A writer flushes buffered chunks after this many milliseconds. Default 10. */
  flushIntervalMs?: number;
  /** Readers re-query at least this often even without a notification. Default 1000. */
  pollIntervalMs?: number;
  /** Chunks fetched per reader query. Default 500. */
  readBatchSize?: number;
  /**
   * How long operations, flushes and readers wait out transient Postgres errors (restart, dropped
   * connection, `pg_terminate_backend`) before throwing a retryable StoreError. Default: 3 minutes.
   */
  retry?: TransientRetryOptions;
  /** Default: `noopLogger`. */
  logger?: Logger;
}

/**
 * A {@link StreamManager} on Postgres, the embedded default: writers buffer chunks and append them in
 * batches (one statement reserves the sequence range, inserts the rows and NOTIFYs); readers sleep on one
 * shared LISTEN connection (reconnected when dropped) and poll as a fallback.
 *
 * Appends are idempotent: every chunk carries a key (its writer's id and counter, or the caller's `key`),
 * stored in a unique column, and the append statement skips keys the stream holds, so a batch re-sent after
 * a dropped connection is stored once. Transient errors are waited out (see `retry`); no raw driver error
 * leaves a public method. NOTIFY payloads carry `md5(streamId)`, so ids up to 1,024 bytes work.
 *
 * `write` throws StreamError(`STREAM_CLOSED`) once the stream is known to be ended: ended by this manager,
 * found ended by `createWriter`, or found ended by a flush (the chunks of that flush are dropped).
 * After `close()` every method throws StoreError (`data.condition` `'STORE_CLOSED'`) at once.
 * `endStream`, `failStream` and `cleanupToStep` first flush this manager's writers of that stream.
 *
 * @example
 * const streams = new PostgresStreamManager({ connectionString: process.env.DATABASE_URL! });
 * await streams.migrate();
 * const writer = await streams.createWriter('s1', 'agent-1', 'assistant');
 * await writer.write({ type: 'text_delta', delta: 'Hi', agentId: 'agent-1', agentType: 'assistant', step: 1, timestamp: Date.now() });
 * await writer.close();
 */
export class PostgresStreamManager implements StreamManager {
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #schema: string;
  readonly #sql: PostgresStreamStatements;
  readonly #logger: Logger;
  readonly #batchSize: number;
  readonly #flushIntervalMs: number;
  readonly #pollIntervalMs: number;
  readonly #readBatchSize: number;
  readonly #retry: TransientRetryPolicy;
  readonly #listener: PostgresNotificationListener;
  readonly #writers: BufferedWriterRegistry;
  readonly #readers = new Set<SequencedStreamReader>();
  /** Rows its writers' step records committed, handed to its readers of their streams. */
  readonly #routes = new HandedChunkRoutes();
  #closing: Promise<void> | undefined;
  /** Its writers' chunks handed to a step record's transaction, and what the fused journal asks before (see `StreamManager.stepRecords`). */
  readonly stepRecords: StreamManagerStepRecords;

  constructor(connection: PostgresStreamConnection = {}, options: PostgresStreamManagerOptions = {}) {
    this.#logger = options.logger ?? noopLogger;
    this.#writers = new BufferedWriterRegistry(this.#logger);
    if ('connectionString' in connection) {
      this.#pool = new pg.Pool({ connectionString: connection.connectionString });
      this.#ownsPool = true;
    } else {
      this.#pool = connection.pool ?? new pg.Pool();
      this.#ownsPool = connection.pool === undefined;
    }
    if (this.#ownsPool) {
      this.#pool.on('error', (error) => this.#logger.warn('idle stream connection failed', { error: describeError(error) }));
      // A backend terminated between two uses of a client must not become an uncaught 'error' event (queries see theirs).
      this.#pool.on('connect', (client) => client.on('error', () => undefined));
    }
    this.#schema = options.schema ?? 'public';
    this.#sql = postgresStreamStatements(this.#schema);
    this.#batchSize = positiveIntegerOption(options.batchSize ?? 100, 'batchSize');
    this.#flushIntervalMs = positiveIntegerOption(options.flushIntervalMs ?? 10, 'flushIntervalMs');
    this.#pollIntervalMs = positiveIntegerOption(options.pollIntervalMs ?? 1_000, 'pollIntervalMs');
    this.#readBatchSize = positiveIntegerOption(options.readBatchSize ?? 500, 'readBatchSize');
    this.#retry = resolveTransientRetry(options.retry);
    this.#listener = new PostgresNotificationListener(this.#pool, { listenStatement: this.#sql.listen, channel: this.#sql.channel, logger: this.#logger });
    const announce = (streamId: string): void => this.#announce(streamId);
    const pend = (committed: CommittedRows): HandedBatch => this.#routes.pend(committed.streamId, committed);
    const parts = { pool: this.#pool, schema: this.#schema, sql: this.#sql, writers: this.#writers, retry: this.#retry, logger: this.#logger };
    this.stepRecords = postgresStreamStepRecords({ ...parts, announce, pend });
  }

  /** Open (creating if needed) a stream for writing. */
  async createWriter(streamId: string, agentId: string, agentType: string): Promise<StreamWriter> {
    const result = await this.#query<{ status: StreamStatus }>('open a stream', this.#sql.open, [streamId, agentId === streamId ? agentType : null]);
    return this.#writers.open(streamId, agentId, agentType, isTerminalStatus(result.rows[0]?.status), {
      // Only inside a step record's transaction (`stepRecords.handOver`) may a state_patch chunk refer to its checkpoint.
      sink: { append: (id, chunks, options) => this.#appendOnPool(id, chunks, agentType, options), appendsLazily: true },
      batchSize: this.#batchSize,
      flushIntervalMs: this.#flushIntervalMs,
      classifyTransient: transientPostgresCondition,
      retry: this.#retry,
    });
  }

  /** Read chunks after `fromSequence`, then live ones until the stream ends or fails. */
  async createReader(streamId: string, fromSequence = 0): Promise<StreamReader> {
    if (this.#closing !== undefined) throw storeClosedError('stream manager', 'read a stream');
    const sourceParts = { pool: this.#pool, sql: this.#sql, listener: this.#listener, routes: this.#routes, streamId };
    const source = postgresChunkSource({ ...sourceParts, readBatchSize: this.#readBatchSize, pollIntervalMs: this.#pollIntervalMs });
    const reader: SequencedStreamReader = new SequencedStreamReader(source, fromSequence, {
      streamId,
      logger: this.#logger,
      classifyTransient: transientPostgresCondition,
      retry: this.#retry,
      onClose: () => this.#readers.delete(reader),
    });
    this.#readers.add(reader);
    return reader;
  }

  /** Flush this manager's writers of the stream, then mark it ended (creating it when unknown). No-op when already ended/failed. */
  async endStream(streamId: string, output?: unknown): Promise<void> {
    await this.#finish(streamId, 'ended', output === undefined ? null : JSON.stringify(output), null);
  }

  /** Flush this manager's writers of the stream, then mark it failed (creating it when unknown). No-op when already ended/failed. */
  async failStream(streamId: string, error: string): Promise<void> {
    await this.#finish(streamId, 'failed', null, error);
  }

  /**
   * Set an ended or failed stream active again (output and error cleared; sequences continue).
   *
   * @throws StreamError `STREAM_NOT_FOUND` when the stream does not exist.
   */
  async reactivateStream(streamId: string): Promise<void> {
    const result = await this.#query('reactivate a stream', this.#sql.reactivate, [streamId, this.#sql.channel]);
    if (result.rowCount === 0) throw streamNotFoundError(streamId);
    this.#writers.setClosed(streamId, false);
  }

  /** Status, last sequence and chunk count of a stream, or `null` when it does not exist. */
  async getInfo(streamId: string): Promise<StreamInfo | null> {
    const result = await this.#query<{
      status: StreamStatus;
      last_sequence: string;
      output: unknown;
      has_output: boolean;
      error: string | null;
      created_at: string;
      updated_at: string;
      chunk_count: string;
    }>('read stream info', this.#sql.info, [streamId]);
    const row = result.rows[0];
    if (row === undefined) return null;
    return {
      streamId,
      status: row.status,
      lastSequence: Number(row.last_sequence),
      chunkCount: Number(row.chunk_count),
      ...(row.has_output ? { output: row.output } : {}),
      ...(row.error === null ? {} : { error: row.error }),
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
    };
  }

  /** Flush this manager's writers of the stream, then delete chunks whose `step` exceeds `step`. */
  async cleanupToStep(streamId: string, step: number, options?: CleanupOptions): Promise<void> {
    if (!Number.isInteger(step)) throw new InvalidArgumentError('cleanupToStep needs an integer `step`.');
    await this.#writers.flushStream(streamId);
    await this.#query('clean up stream chunks', this.#sql.cleanup, [streamId, step, options?.afterSequence ?? 0, options?.agentId ?? null]);
  }

  async pruneChunks(streamId: string): Promise<number> {
    return Number((await this.#query<{ count: string }>('prune stream chunks', this.#sql.prune, [streamId])).rows[0]?.count ?? 0);
  }

  /**
   * Apply the package's store migrations (which create the stream tables) to this manager's schema.
   * Safe to call from several processes and alongside the state store's own migrate.
   *
   * @throws StoreError `MIGRATION_FAILED`.
   */
  async migrate(): Promise<void> {
    // One transaction under an advisory lock, recorded per file: retrying after any failure is safe.
    const settings = { policy: this.#retry, classify: transientPostgresCondition, logger: this.#logger };
    await retryTransient('migrate the stream tables', () => runMigrations(this.#pool, this.#schema, { logger: this.#logger }), settings);
  }

  /** Flush and release writers, complete readers, drop the LISTEN connection, and end the pool if owned. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  /** Wakes `listener` on the NOTIFY of the statement that ends or fails `streamId` (its `.end` key), in any process. */
  onStreamEnd(streamId: string, listener: () => void): () => void {
    assertStreamId(streamId);
    return this.#listener.subscribe(streamEndNotificationKey(streamId), listener);
  }

  /** The LISTEN connection's backend pid (for diagnostics and tests), or `undefined` while disconnected. */
  get listenerProcessId(): number | undefined {
    return this.#listener.processId;
  }

  async #shutdown(): Promise<void> {
    await this.#writers.closeAll();
    await Promise.all([...this.#readers].map((reader) => reader.close()));
    await this.#listener.close();
    if (this.#ownsPool) await this.#pool.end();
  }

  async #finish(streamId: string, status: 'ended' | 'failed', output: string | null, error: string | null): Promise<void> {
    await this.#writers.flushStream(streamId);
    // Idempotent: it only changes an active stream, so a retry after a lost reply is a no-op.
    await this.#query('finish a stream', this.#sql.finish, [streamId, status, output, error, this.#sql.channel]);
    this.#writers.setClosed(streamId, true);
    this.#announce(streamId);
  }

  /**
   * A writer's flush: `chunks` appended on the pool (committed once answered) and handed to this process's readers of
   * the stream, which wait for the answer when woken before it (its NOTIFY may arrive first), then wake.
   */
  async #appendOnPool(streamId: string, chunks: KeyedChunk[], agentType: string, options?: ChunkAppendOptions): Promise<void> {
    const handed = this.#routes.pend(streamId);
    try {
      const place = (rows: CommittedRows | undefined): void => (rows === undefined ? handed.discard() : handed.place(rows));
      await appendChunks(this.#sql, preparedStatements(this.#pool), streamId, chunks, { withCheckpoint: false }, agentType, place, options);
    } catch (error) {
      handed.discard();
      throw error;
    }
    handed.commit();
    this.#announce(streamId);
  }

  /** This process's readers of `streamId` read again now (a write committed here; its NOTIFY follows). */
  #announce(streamId: string): void {
    this.#listener.announce(streamNotificationKey(streamId));
  }

  /** One statement (every one of them is idempotent), waiting out transient errors; failures leave as HelixErrors. */
  #query<R extends pg.QueryResultRow = pg.QueryResultRow>(operation: string, text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    if (this.#closing !== undefined) return Promise.reject(storeClosedError('stream manager', operation));
    const query = () => preparedStatements(this.#pool).query<R>(text, values);
    return runPostgresOperation(operation, query, { retry: this.#retry, logger: this.#logger });
  }
}

guardStreamManagerArguments(PostgresStreamManager, { migrate: [] });

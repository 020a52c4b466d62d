import { quoteIdentifier } from '../../database/sql-identifier.js';
import { InvalidArgumentError } from '../../errors/index.js';

/**
 * Schema-qualified, quoted names of the store's tables (safe to splice into SQL).
 *
 * @example
 * const { sessions }: StoreTables = storeTables('public'); // '"public"."__agents_sessions"'
 */
export interface StoreTables {
  schema: string;
  sessions: string;
  messages: string;
  runs: string;
  checkpoints: string;
  subSessionRefs: string;
  staging: string;
  usage: string;
  migrations: string;
  /** The stream tables the migrations create in the same schema (used by `PostgresStreamManager` on that schema). */
  streams: string;
  streamChunks: string;
}


/**
 * Throw InvalidArgumentError unless `schema` is a usable Postgres schema name (1–63 bytes, no NUL).
 *
 * @example
 * assertSchemaName('helix_agents');
 */
export function assertSchemaName(schema: unknown): asserts schema is string {
  if (typeof schema !== 'string' || schema.length === 0 || Buffer.byteLength(schema) > 63 || schema.includes('\u0000')) {
    throw new InvalidArgumentError('schema must be a Postgres identifier of 1 to 63 bytes.', { field: 'schema' });
  }
}

/**
 * The qualified table names of the store in `schema`.
 *
 * @example
 * const tables = storeTables('public'); // tables.sessions === '"public"."__agents_sessions"'
 */
export function storeTables(schema: string): StoreTables {
  assertSchemaName(schema);
  const qualified = (table: string): string => `${quoteIdentifier(schema)}.${quoteIdentifier(table)}`;
  return {
    schema,
    sessions: qualified('__agents_sessions'),
    messages: qualified('__agents_messages'),
    runs: qualified('__agents_runs'),
    checkpoints: qualified('__agents_checkpoints'),
    subSessionRefs: qualified('__agents_sub_session_refs'),
    staging: qualified('__agents_staging'),
    usage: qualified('__agents_usage'),
    migrations: qualified('__agents_migrations'),
    streams: qualified('__agents_streams'),
    streamChunks: qualified('__agents_stream_chunks'),
  };
}

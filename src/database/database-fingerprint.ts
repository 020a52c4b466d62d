import type { QueryResult, QueryResultRow } from 'pg';
import { StoreError } from '../errors/index.js';

/**
 * One statement naming the database a connection writes to: its name and oid and its server's start time, so two
 * pools agree only when they reach the same database of the same running server (a different server, or another
 * database on the same server, gives another value). Readable by any role.
 *
 * @example
 * const { rows } = await pool.query(DATABASE_FINGERPRINT_SQL); // rows[0].fingerprint
 */
export const DATABASE_FINGERPRINT_SQL = `SELECT current_database() || '/' || (SELECT oid FROM pg_database WHERE datname = current_database())::text
  || '/' || pg_postmaster_start_time()::text AS fingerprint`;

/**
 * The fingerprint of the database `queryable` reaches (see {@link DATABASE_FINGERPRINT_SQL}).
 *
 * @example
 * const same = (await databaseFingerprint(storePool)) === (await databaseFingerprint(dbosPool));
 */
export async function databaseFingerprint(queryable: {
  query<R extends QueryResultRow>(text: string): Promise<QueryResult<R>>;
}): Promise<string> {
  const { rows } = await queryable.query<{ fingerprint: string }>(DATABASE_FINGERPRINT_SQL);
  const fingerprint = rows[0]?.fingerprint;
  if (fingerprint === undefined) {
    throw new StoreError('STORE_ERROR', 'The database returned no row naming itself; check that the connection reaches a PostgreSQL server.');
  }
  return fingerprint;
}

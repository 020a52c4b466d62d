import pg from 'pg';
import { markUntraced } from './statement-trace.js';

/** User tables of the database: everything outside the catalogs (one database per system). */
const USER_TABLES = "schemaname NOT IN ('pg_catalog', 'information_schema')";

/**
 * Read-only measurements of one system's database on a connection of its own. Every query is a read-only
 * autocommit transaction (no transaction id), and the probe counts them so they can be taken out of the
 * database's transaction count.
 *
 * @example
 * const probe = await openDatabaseProbe(url);
 * const before = await probe.nextTransactionId();
 */
export interface DatabaseProbe {
  /**
   * The next transaction id the server will assign (`pg_snapshot_xmax(pg_current_snapshot())`). Only
   * transactions that write get an id, so the difference of two reads counts write transactions; the
   * counter is server-wide, so nothing else may write on the server in between.
   */
  nextTransactionId(): Promise<number>;
  /** sum(xact_commit + xact_rollback) of this database in pg_stat_database (published up to 10 s late). */
  transactionCount(): Promise<number>;
  /** sum(pg_total_relation_size) of the user tables: heap, indexes and TOAST, in bytes (8 KiB pages). */
  diskBytes(): Promise<number>;
  /**
   * Per user table (`schema.table`): `table` = pg_table_size (heap, TOAST, free-space and visibility maps),
   * `indexes` = pg_indexes_size; their sum is what `diskBytes` adds up.
   */
  diskBytesByRelation(): Promise<RelationSizes>;
  /** sum(pg_column_size(row)) over every row of every user table: the stored row bytes, compressed values included. */
  rowBytes(): Promise<number>;
  /** Queries this probe has run so far. */
  readonly queries: number;
  close(): Promise<void>;
}

/**
 * Bytes per user table, keyed `schema.table`.
 *
 * @example
 * const sizes: RelationSizes = { 'public.__agents_checkpoints': { table: 90112, indexes: 32768 } };
 */
export type RelationSizes = Record<string, { table: number; indexes: number }>;

/**
 * Connect a probe to `databaseUrl`'s database.
 *
 * @example
 * const probe = await openDatabaseProbe(url);
 * try { console.log(await probe.diskBytes()); } finally { await probe.close(); }
 */
export async function openDatabaseProbe(databaseUrl: string): Promise<DatabaseProbe> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  markUntraced(client);
  let queries = 0;
  const number = async (sql: string): Promise<number> => {
    queries += 1;
    const { rows } = await client.query<{ value: string | null }>(sql);
    return Number(rows[0]?.value ?? 0);
  };
  return {
    nextTransactionId: () => number('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS value'),
    transactionCount: () =>
      number('SELECT sum(xact_commit + xact_rollback)::text AS value FROM pg_stat_database WHERE datname = current_database()'),
    diskBytes: () =>
      number(`SELECT sum(pg_total_relation_size(format('%I.%I', schemaname, tablename)))::text AS value FROM pg_tables WHERE ${USER_TABLES}`),
    diskBytesByRelation: async () => {
      queries += 1;
      const { rows } = await client.query<{ name: string; table_bytes: string; index_bytes: string }>(
        `SELECT format('%s.%s', schemaname, tablename) AS name, pg_table_size(format('%I.%I', schemaname, tablename))::text AS table_bytes,
           pg_indexes_size(format('%I.%I', schemaname, tablename))::text AS index_bytes
         FROM pg_tables WHERE ${USER_TABLES}`,
      );
      return Object.fromEntries(rows.map((row) => [row.name, { table: Number(row.table_bytes), indexes: Number(row.index_bytes) }]));
    },
    // One statement for every table: query_to_xml runs the per-table sum and xpath reads it back.
    rowBytes: () =>
      number(
        `SELECT sum((xpath('/row/bytes/text()', query_to_xml(format('SELECT coalesce(sum(pg_column_size(t.*)), 0) AS bytes FROM %I.%I t', schemaname, tablename), false, true, '')))[1]::text::bigint)::text AS value FROM pg_tables WHERE ${USER_TABLES}`,
      ),
    get queries() {
      return queries;
    },
    close: () => client.end(),
  };
}

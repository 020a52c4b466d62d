import pg from 'pg';

/**
 * Reads a database's committed + rolled-back transaction count from pg_stat_database (its own queries add
 * one transaction each).
 *
 * @example
 * const counter = await openTransactionCounter(url);
 * const before = await counter.count();
 */
export interface TransactionCounter {
  /** sum(xact_commit + xact_rollback) of the connected database. */
  count(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Connect a transaction counter to `databaseUrl`'s database.
 *
 * @example
 * const counter = await openTransactionCounter(url);
 * try { console.log(await counter.count()); } finally { await counter.close(); }
 */
export async function openTransactionCounter(databaseUrl: string): Promise<TransactionCounter> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  return {
    count: async () => {
      const { rows } = await client.query<{ total: string }>(
        'SELECT sum(xact_commit + xact_rollback)::text AS total FROM pg_stat_database WHERE datname = current_database()',
      );
      return Number(rows[0]?.total ?? Number.NaN);
    },
    close: () => client.end(),
  };
}

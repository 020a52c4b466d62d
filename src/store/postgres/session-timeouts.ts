/**
 * Default `idle_in_transaction_session_timeout` of {@link withIdleTransactionTimeout}: one minute.
 *
 * @example
 * withIdleTransactionTimeout(url, DEFAULT_IDLE_TRANSACTION_TIMEOUT_MS * 5);
 */
export const DEFAULT_IDLE_TRANSACTION_TIMEOUT_MS = 60_000;

/**
 * A Postgres connection URL whose sessions end transactions left idle for `timeoutMs` (libpq `options`
 * `-c idle_in_transaction_session_timeout=…`, appended to any options already there; a URL that sets it is
 * returned unchanged). Use it for DBOS's `systemDatabaseUrl` and the stores: a connection a crashed holder
 * left inside a transaction cannot block the others, and DBOS then skips the per-connection `SET` it would
 * otherwise queue (the source of pg's "client is already executing a query" deprecation warning).
 *
 * @throws TypeError for a string that is not a URL.
 * @example
 * DBOS.setConfig({ name: 'app', systemDatabaseUrl: withIdleTransactionTimeout(process.env.DATABASE_URL!) });
 * const stateStore = new PostgresStateStore({ connectionString: withIdleTransactionTimeout(process.env.DATABASE_URL!) });
 */
export function withIdleTransactionTimeout(databaseUrl: string, timeoutMs: number = DEFAULT_IDLE_TRANSACTION_TIMEOUT_MS): string {
  const url = new URL(databaseUrl);
  const options = url.searchParams.get('options') ?? '';
  if (options.includes('idle_in_transaction_session_timeout')) return databaseUrl;
  const setting = `-c idle_in_transaction_session_timeout=${Math.max(1, Math.round(timeoutMs))}`;
  url.searchParams.set('options', options === '' ? setting : `${options} ${setting}`);
  return url.toString();
}

/**
 * True when a Postgres error may go away on retry: connection failures (`08…`), server shutdown or
 * restart (`57P…`), resource exhaustion (`53…`), serialization failures and deadlocks (`40001`, `40P01`),
 * and Node network errors (`ECONNRESET`…) or errors without a code ("Connection terminated").
 *
 * @example
 * if (isTransientPostgresError(error)) scheduleRetry();
 */
export function isTransientPostgresError(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== 'string') return true;
  if (code.startsWith('E')) return true; // Node system errors (ECONNRESET, EPIPE…); no SQLSTATE class starts with E
  if (!/^[0-9A-Z]{5}$/.test(code)) return false;
  return code.startsWith('08') || code.startsWith('57P') || code.startsWith('53') || code === '40001' || code === '40P01';
}

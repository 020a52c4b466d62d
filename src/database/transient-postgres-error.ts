import { isStalePreparedPlan } from './named-statements.js';

/**
 * SQLSTATEs that mean "the server or the connection went away, or the transaction lost a race; the same
 * statement may succeed later": admin shutdown / crash shutdown / cannot connect now (starting up, shutting
 * down), connection exceptions, too many connections, serialization failure and deadlock.
 */
const TRANSIENT_SQLSTATES: ReadonlySet<string> = new Set([
  '57P01', // admin_shutdown (pg_terminate_backend, fast shutdown)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down, recovery)
  '08000', // connection_exception
  '08001', // sqlclient_unable_to_establish_sqlconnection
  '08003', // connection_does_not_exist
  '08004', // sqlserver_rejected_establishment_of_sqlconnection
  '08006', // connection_failure
  '53300', // too_many_connections
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);

/** Node network errors a restarting or unreachable server produces. */
const TRANSIENT_SYSTEM_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * Messages of node-postgres and knex errors that carry no code but mean a lost or unobtainable connection
 * (knex prefixes the statement: `BEGIN; - Connection terminated unexpectedly`).
 */
const TRANSIENT_MESSAGE =
  /(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|Connection ended unexpectedly|timeout exceeded when trying to connect|Knex: Timeout acquiring a connection)/;

/**
 * The name of the transient condition behind `error` — its SQLSTATE (`57P01`), Node code (`ECONNREFUSED`),
 * `KnexTimeoutError` or `ConnectionTerminated` — or `undefined` when the error is not a known transient
 * connection-level failure (a constraint violation, a bug, a missing table: retrying will not help).
 * Follows `cause` chains (knex and the stores wrap driver errors).
 *
 * @example
 * transientPostgresCondition(error); // '57P01' after pg_terminate_backend
 */
export function transientPostgresCondition(error: unknown): string | undefined {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 5; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (TRANSIENT_SQLSTATES.has(code) || TRANSIENT_SYSTEM_CODES.has(code))) return code;
    if (isStalePreparedPlan(current)) return 'StalePreparedPlan';
    const name = (current as { name?: unknown }).name;
    if (name === 'KnexTimeoutError') return 'KnexTimeoutError';
    const message = (current as { message?: unknown }).message;
    const matched = typeof message === 'string' ? TRANSIENT_MESSAGE.exec(message)?.[1] : undefined;
    if (matched !== undefined) return matched.startsWith('Knex') || matched.startsWith('timeout') ? 'ConnectionTimeout' : 'ConnectionTerminated';
    const errors = (current as { errors?: unknown }).errors; // AggregateError (e.g. every address refused)
    if (Array.isArray(errors)) {
      const inner = errors.map(transientPostgresCondition).find((condition) => condition !== undefined);
      if (inner !== undefined) return inner;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * True when `error` is a transient connection-level Postgres failure (see {@link transientPostgresCondition}).
 *
 * @example
 * if (isTransientPostgresError(error)) scheduleRetry();
 */
export function isTransientPostgresError(error: unknown): boolean {
  return transientPostgresCondition(error) !== undefined;
}

/**
 * True when a transient failure leaves no doubt that nothing was applied: the transaction was rolled back
 * by the server (serialization failure, deadlock) or no connection was made (refused, cannot connect now,
 * pool timeout). Other transient failures (the connection dropped with a statement in flight) are
 * ambiguous: the statement, or the COMMIT, may have taken effect.
 *
 * @example
 * if (!isCertainlyNotApplied(error)) await checkWhetherItWasApplied();
 */
export function isCertainlyNotApplied(condition: string): boolean {
  return CERTAINLY_NOT_APPLIED.has(condition);
}

/** The transient conditions of {@link isCertainlyNotApplied}. */
const CERTAINLY_NOT_APPLIED: ReadonlySet<string> = new Set([
  'StalePreparedPlan', // the statement was refused before it ran
  '40001', // serialization_failure: rolled back
  '40P01', // deadlock_detected: rolled back
  '57P03', // cannot_connect_now
  '08001', // sqlclient_unable_to_establish_sqlconnection
  '08004', // sqlserver_rejected_establishment_of_sqlconnection
  '53300', // too_many_connections
  'ECONNREFUSED',
  'KnexTimeoutError',
  'ConnectionTimeout',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

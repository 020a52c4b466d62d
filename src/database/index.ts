export {
  DEFAULT_TRANSIENT_RETRY,
  resolveTransientRetry,
  retryTransient,
  exhaustedError,
  type TransientRetryOptions,
  type TransientRetryPolicy,
  type RetryAttempt,
  type RetrySettings,
} from './transient-retry.js';
export { transientPostgresCondition, isTransientPostgresError, isCertainlyNotApplied } from './transient-postgres-error.js';
export { runPostgresOperation, toPostgresStoreError, postgresSqlState } from './postgres-operation.js';

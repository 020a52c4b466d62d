export type { SessionStateStore, StoredMessage } from './state-store.js';
export type { SessionListPage, SessionListQuery, SessionSummary } from './session-listing.js';
export { openCallsOf, openCallsOfDescendants } from './open-calls.js';
export type { StartWriteOptions, StateStoreStepRecords, StepCommitOnConnection } from './step-records.js';
export { InMemoryStateStore } from './memory/in-memory-state-store.js';
export {
  PostgresStateStore,
  type PostgresStateStoreConnection,
  type PostgresStateStoreOptions,
} from './postgres/postgres-state-store.js';
export { runMigrations, type MigrationTarget, type RunMigrationsOptions } from './postgres/migrate.js';
export { STATE_STORE_STEP_RECORD_ARGUMENTS, guardStateStoreStepRecordArguments } from './state-store-arguments.js';
export {
  everyItem,
  guardArguments,
  idArgument,
  objectFields,
  optionalIdArgument,
  type ArgumentRule,
  type MethodArgumentRules,
} from './argument-guard.js';
export { assertStoredId, MAX_STORED_ID_BYTES } from './validation.js';

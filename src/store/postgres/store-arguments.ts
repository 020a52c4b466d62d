import type { MethodArgumentRules } from '../argument-guard.js';
import type { PostgresStateStore } from './postgres-state-store.js';

/**
 * The id arguments of `PostgresStateStore`'s own methods (see `guardStateStoreArguments`): none for `migrate`. The
 * step-record members (`stepRecords`) are guarded by `guardStateStoreStepRecordArguments`.
 *
 * @example
 * guardStateStoreArguments(PostgresStateStore, POSTGRES_STORE_ARGUMENTS);
 */
export const POSTGRES_STORE_ARGUMENTS = {
  migrate: [],
} as const satisfies Partial<Record<keyof PostgresStateStore, MethodArgumentRules>>;

import type { MethodArgumentRules } from '../argument-guard.js';
import { STATE_STORE_ARGUMENTS } from '../state-store-arguments.js';
import type { PostgresStateStore } from './postgres-state-store.js';

/**
 * The id arguments of `PostgresStateStore`'s own methods (see `guardStateStoreArguments`): none for the schema
 * methods, the step commit's after the connection it joins.
 *
 * @example
 * guardStateStoreArguments(PostgresStateStore, POSTGRES_STORE_ARGUMENTS);
 */
export const POSTGRES_STORE_ARGUMENTS = {
  migrate: [],
  storeSchema: [],
  databaseFingerprint: [],
  commitStepOn: [undefined, ...STATE_STORE_ARGUMENTS.saveStateAndPromoteStaging],
} as const satisfies Partial<Record<keyof PostgresStateStore, MethodArgumentRules>>;

export type { UsageStore, UsageStoreStepRecords } from './usage-store.js';
export { InMemoryUsageStore } from './memory/in-memory-usage-store.js';
export { PostgresUsageStore, type PostgresUsageStoreOptions } from './postgres/postgres-usage-store.js';
export { summarizeUsage } from './summarize.js';

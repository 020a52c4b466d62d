import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

import { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';
import { WorkerProcesses } from './worker-process.js';

/** What a drill file's hooks set up: its own database with the store migrated and the drill's tables created. */
export interface DrillDatabase {
  readonly database: TestDatabase;
  readonly pool: pg.Pool;
  readonly stateStore: PostgresStateStore;
  readonly workers: WorkerProcesses;
  /** `SELECT count(*) …` as a number. */
  readonly count: (sql: string, parameters: unknown[]) => Promise<number>;
}

/**
 * Register the beforeAll/afterAll hooks of a drill file that drives worker processes against one fresh database
 * (the workers are killed and the database dropped afterwards). Read the members inside tests, not at import.
 */
export function useDrillDatabase(name: string, tablesSql: string): DrillDatabase {
  let database: TestDatabase | undefined;
  let pool: pg.Pool | undefined;
  let stateStore: PostgresStateStore | undefined;
  const workers = new WorkerProcesses();
  beforeAll(async () => {
    database = await createTestDatabase(name);
    pool = new pg.Pool({ connectionString: database.url, max: 3 });
    stateStore = new PostgresStateStore({ connectionString: database.url });
    await stateStore.migrate();
    await pool.query(tablesSql);
  }, 60_000);
  afterAll(async () => {
    await workers.killAll();
    await Promise.allSettled([pool?.end(), stateStore?.close()]);
    await database?.drop();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the drill database is read before its beforeAll hook ran');
    return value;
  };
  return {
    get database() { return ready(database); },
    get pool() { return ready(pool); },
    get stateStore() { return ready(stateStore); },
    workers,
    count: async (sql, parameters) => Number((await ready(pool).query<{ count: string }>(sql, parameters)).rows[0]?.count ?? 0),
  };
}

/** Poll `check` every `everyMs` until it holds; throws naming `what` after `timeoutMs`. */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000, everyMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

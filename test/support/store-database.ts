import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PostgresStateStore, runMigrations } from '../../src/store/index.js';
import { createTestDatabase, type TestDatabase } from './services.js';

/** A fresh test database with a migrated `PostgresStateStore` and an admin client for raw SQL. */
export interface StoreDatabase {
  database: TestDatabase;
  admin: pg.Client;
  store: PostgresStateStore;
  close(): Promise<void>;
}

/**
 * Create a test database, connect an admin client and migrate a store on it (`close()` undoes all three).
 *
 * @example
 * let db: StoreDatabase; beforeAll(async () => (db = await openStoreDatabase('deltas'))); afterAll(() => db.close());
 */
export async function openStoreDatabase(prefix: string): Promise<StoreDatabase> {
  const database = await createTestDatabase(prefix);
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  const store = new PostgresStateStore({ connectionString: database.url });
  await store.migrate();
  return {
    database,
    admin,
    store,
    close: async () => {
      await store.close();
      await admin.end();
      await database.drop();
    },
  };
}

/**
 * Apply to `schema` only the package's migrations whose file names sort before `beforePrefix` (e.g. '008'), to
 * set up rows as an older version of the store left them.
 *
 * @example
 * await migrateBefore(admin, 'legacy', '006');
 */
export async function migrateBefore(admin: pg.Client, schema: string, beforePrefix: string): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'helix-migrations-'));
  try {
    const schemaDirectory = fileURLToPath(new URL('../../schema/', import.meta.url));
    for (const file of readdirSync(schemaDirectory).filter((name) => name < beforePrefix)) copyFileSync(join(schemaDirectory, file), join(directory, file));
    await runMigrations(admin, schema, { directory });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

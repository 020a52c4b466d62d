import pg from 'pg';
import { PostgresStateStore } from '../../../src/store/index.js';
import { PostgresStreamManager } from '../../../src/stream/index.js';
import type { StepRecordsContractSubject } from '../../../src/testing/contracts/index.js';
import { PostgresUsageStore } from '../../../src/usage/index.js';

/** The three Postgres components on one database, in `schema` (migrated). */
async function postgresComponents(url: string, schema: string) {
  const stateStore = new PostgresStateStore({ connectionString: url }, { schema });
  await stateStore.migrate();
  const streamManager = new PostgresStreamManager({ connectionString: url }, { schema });
  const usageStore = new PostgresUsageStore({ connectionString: url, schema });
  const close = async (): Promise<void> => {
    await Promise.all([stateStore.close(), streamManager.close(), usageStore.close()]);
  };
  return { components: { stateStore, streamManager, usageStore }, close };
}

/**
 * The step records contract subject of the Postgres components: state store, stream manager and usage store on the
 * database at `url`, the same three on the database at `elsewhereUrl`, and connections from a pool of its own.
 *
 * @example
 * describeStepRecordsContract('Postgres', () => postgresStepRecordsSubject(database.url, elsewhere.url, 'public'));
 */
export async function postgresStepRecordsSubject(url: string, elsewhereUrl: string, schema: string): Promise<StepRecordsContractSubject> {
  const here = await postgresComponents(url, schema);
  const elsewhere = await postgresComponents(elsewhereUrl, schema);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  return {
    components: here.components,
    elsewhere: elsewhere.components,
    connect: () => pool.connect(),
    cleanup: async () => {
      await Promise.all([here.close(), elsewhere.close()]);
      await pool.end();
    },
  };
}

import { afterAll, beforeAll } from 'vitest';
import { PostgresStreamManager } from '../../../src/stream/postgres/postgres-stream-manager.js';
import { describeStreamManagerContract } from '../../../src/testing/contracts/index.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('stream_pg_contract');
  const migrator = new PostgresStreamManager({ connectionString: database.url });
  await migrator.migrate();
  await migrator.close();
});

afterAll(async () => {
  await database.drop();
});

describeStreamManagerContract('PostgresStreamManager', () => new PostgresStreamManager({ connectionString: database.url }), { endHints: true });

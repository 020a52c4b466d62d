import { afterAll, beforeAll } from 'vitest';
import { describeUsageStoreContract } from '../../../src/testing/contracts/index.js';
import { PostgresUsageStore } from '../../../src/usage/index.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('usage_store_contract');
});
afterAll(async () => {
  await database.drop();
});

for (const schema of ['public', 'Usage "Quoted" schema']) {
  describeUsageStoreContract(`PostgresUsageStore (schema ${schema})`, async () => {
    const store = new PostgresUsageStore({ connectionString: database.url, schema });
    await store.migrate();
    return store;
  });
}

import { afterAll, beforeAll } from 'vitest';
import { PostgresStateStore } from '../../../src/store/index.js';
import { describeStateStoreContract } from '../../../src/testing/contracts/index.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('state_store_contract');
});
afterAll(async () => {
  await database.drop();
});

for (const schema of ['public', 'Helix "Agents" schema']) {
  describeStateStoreContract(`PostgresStateStore (schema ${schema})`, async () => {
    const store = new PostgresStateStore({ connectionString: database.url }, { schema });
    await store.migrate();
    return { store, cleanup: () => store.close() };
  });
}

import { afterAll, beforeAll } from 'vitest';
import { describeStepRecordsContract } from '../../../src/testing/contracts/index.js';
import { createTestDatabase, type TestDatabase } from '../../support/services.js';
import { postgresStepRecordsSubject } from './postgres-subject.js';

let database: TestDatabase;
let elsewhere: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('step_records_contract');
  elsewhere = await createTestDatabase('step_records_elsewhere');
});
afterAll(async () => {
  await Promise.all([database?.drop(), elsewhere?.drop()]);
});

for (const schema of ['public', 'Helix "Records" schema']) {
  describeStepRecordsContract(`PostgresStateStore + PostgresStreamManager + PostgresUsageStore (schema ${schema})`, () =>
    postgresStepRecordsSubject(database.url, elsewhere.url, schema),
  );
}

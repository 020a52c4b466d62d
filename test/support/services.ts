import { inject } from 'vitest';
import { createDatabaseOn, type TestDatabase } from './databases.js';

export { createDatabaseOn, type TestDatabase } from './databases.js';

/** Create a fresh, empty database on the test Postgres (one per test file). */
export async function createTestDatabase(prefix: string): Promise<TestDatabase> {
  return createDatabaseOn(inject('postgresUrl'), prefix);
}

/** The test Redis URL. */
export function testRedisUrl(): string {
  return inject('redisUrl');
}

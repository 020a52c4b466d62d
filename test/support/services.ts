import { inject } from 'vitest';
import { createDatabaseOn, type TestDatabase } from './databases.js';

export { createDatabaseOn, type TestDatabase } from './databases.js';

/**
 * Create a fresh, empty database on the test Postgres (one per test file), named for the journal of the file's vitest
 * project: both projects run some files at once on the one server, and a database tells which run it belongs to.
 */
export async function createTestDatabase(prefix: string): Promise<TestDatabase> {
  const journal = process.env.HELIX_JOURNAL === 'public' ? 'public' : 'fused';
  return createDatabaseOn(inject('postgresUrl'), `${journal}_${prefix}`);
}

/** The test Redis URL (throws when none is available: guard Redis suites with `describe.skipIf(!redisAvailable())`). */
export function testRedisUrl(): string {
  if (!redisAvailable()) throw new Error('No test Redis: guard this suite with describe.skipIf(!redisAvailable()).');
  return inject('redisUrl');
}

/** True when the global setup provisioned a Redis (always, under HELIX_TEST_REQUIRE_REDIS=1). */
export function redisAvailable(): boolean {
  return inject('redisAvailable');
}

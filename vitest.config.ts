import { defineConfig } from 'vitest/config';

/** What every project shares (projects do not extend the root: its global setup must run once, not per project). */
const common = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks',
} as const;

/**
 * The integration and crash suites, re-run on the public journal (issue 21), except these files, each with why.
 * Files that pin `journal: 'fused'` themselves are here too: a re-run would repeat the fused run.
 */
const NOT_ON_PUBLIC: ReadonlyArray<readonly [file: string, reason: string]> = [
  ['test/integration/executor/optimistic-step-commit.test.ts', 'calls the fused record transaction (src/journal/fused/) directly: no executor journal'],
  ['test/integration/executor/step-record-transaction.test.ts', 'calls the fused record transaction (src/journal/fused/) directly: no executor journal'],
  ['test/integration/executor/lean-step-refusal.test.ts', 'pins the fused journal: record.defer exists only there (a public step writes on its own)'],
  ['test/integration/executor/state-patch-reference.test.ts', 'asserts how chunks committed in the fused step record are stored (state_patch as a checkpoint reference)'],
  ['test/crash/step-record-crash.test.ts', 'pins the fused journal: the drill kills a worker inside the fused record transaction'],
  ['test/crash/journal-switch.test.ts', 'pins both journals itself (recorded on one, recovered on the other)'],
  ['test/crash/batch-record-crash.test.ts', 'pins both journals itself (killed inside a public-journal step, recovered on each)'],
  ['test/integration/bench.test.ts', 'a smoke test of the benchmark program (bench/), not of the agent loop; ~60 s'],
];

/**
 * `npm test` runs two projects on one Postgres and Redis (the root's global setup): `fused-journal`, every test on
 * the default journal, and `public-journal`, the integration and crash suites again with `HELIX_JOURNAL=public`
 * (crash-drill workers inherit it). One project alone: `npx vitest run --project public-journal test/crash`.
 */
export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    // Two cores in CI, and the suites mostly wait (Postgres, timers, child processes): two forks run both projects in
    // ~9 min (one would take ~20); a third gained little and pushed a 250 ms run-control latency test over its bound.
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      {
        test: {
          ...common,
          name: 'fused-journal',
          include: ['test/**/*.test.ts'],
          env: { HELIX_JOURNAL: 'fused' },
        },
      },
      {
        test: {
          ...common,
          name: 'public-journal',
          include: ['test/integration/**/*.test.ts', 'test/crash/**/*.test.ts'],
          exclude: NOT_ON_PUBLIC.map(([file]) => file),
          env: { HELIX_JOURNAL: 'public' },
        },
      },
    ],
  },
});

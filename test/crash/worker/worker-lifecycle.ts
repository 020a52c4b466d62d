import type { WorkerEvent } from './worker-config.js';

/** A worker that is never killed still ends: the parent may have died without cleaning up. */
export const MAX_LIFETIME_MS = 120_000;

/** One event line to the parent on stdout. */
export function emit(event: WorkerEvent): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

/**
 * Run a worker's `main` and exit: 0 when it returns, 1 with a `failed` event when it throws, 3 with a `failed`
 * event when it outlives {@link MAX_LIFETIME_MS}.
 */
export function runWorker(main: () => Promise<void>): void {
  const lifetime = setTimeout(() => {
    emit({ event: 'failed', message: `worker exceeded its ${MAX_LIFETIME_MS} ms lifetime` });
    process.exit(3);
  }, MAX_LIFETIME_MS);
  main().then(
    () => {
      clearTimeout(lifetime);
      process.exit(0);
    },
    (error: unknown) => {
      emit({ event: 'failed', message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
      process.exit(1);
    },
  );
}

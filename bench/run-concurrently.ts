/**
 * Call `task(0) … task(count - 1)` with at most `concurrency` calls in flight; rejects with the first failure
 * (after the calls in flight settle).
 *
 * @example
 * await runConcurrently(2_000, 25, (index) => startSession(index));
 */
export async function runConcurrently(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next;
      next += 1;
      await task(index);
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(concurrency, count) }, () => worker()));
  const failure = results.find((result) => result.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
}

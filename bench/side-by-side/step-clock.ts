/**
 * Times the steps of one session the same way for every system: each model call `n` (step n; the call
 * after the last tool step is the final answer) reports to the clock when it starts. At chosen calls the
 * clock also takes a snapshot (e.g. the stored row bytes); the time a snapshot takes is left out of the
 * step times. Step n lasts from the start of call n to the start of call n + 1.
 *
 * @example
 * const clock = new StepClock(new Map([[1, probe.rowBytes]]));
 * await clock.onModelCall(1); // from the scripted model
 */
export class StepClock {
  private readonly starts = new Map<number, number>();
  private readonly resumed = new Map<number, number>();
  private readonly values = new Map<number, number>();

  /** `snapshots`: model call number → what to measure when that call starts. */
  constructor(private readonly snapshots: ReadonlyMap<number, () => Promise<number>> = new Map()) {}

  /**
   * Record the start of model call `call` (1-based) and take its snapshot, if any.
   *
   * @example
   * await clock.onModelCall(input.step ?? 1);
   */
  async onModelCall(call: number): Promise<void> {
    this.starts.set(call, performance.now());
    const snapshot = this.snapshots.get(call);
    if (snapshot !== undefined) this.values.set(call, await snapshot());
    this.resumed.set(call, performance.now());
  }

  /** Model calls seen. */
  get calls(): number {
    return this.starts.size;
  }

  /**
   * Mean duration in ms of steps `first`..`last` (needs calls `first`..`last + 1`), snapshots excluded.
   *
   * @throws Error when a call in the range was not seen.
   * @example
   * clock.meanStepMs(1, 20);
   */
  meanStepMs(first: number, last: number): number {
    let total = 0;
    for (let step = first; step <= last; step += 1) {
      const resumed = this.resumed.get(step);
      const next = this.starts.get(step + 1);
      if (resumed === undefined || next === undefined) throw new Error(`Model calls ${step} and ${step + 1} were not both seen.`);
      total += next - resumed;
    }
    return total / (last - first + 1);
  }

  /**
   * The snapshot taken at model call `call`.
   *
   * @throws Error when no snapshot was taken there.
   * @example
   * clock.snapshot(21) - clock.snapshot(1); // row bytes of steps 1–20
   */
  snapshot(call: number): number {
    const value = this.values.get(call);
    if (value === undefined) throw new Error(`No snapshot was taken at model call ${call}.`);
    return value;
  }
}

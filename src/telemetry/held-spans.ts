import { AsyncLocalStorage } from 'node:async_hooks';
import { diag, type Span } from '@opentelemetry/api';

/** A span a journaled step's body emitted: started and ended in the SDK once the step's record commits. */
export interface HeldSpan {
  name: string;
  endTime: number;
  /** Start it in the SDK, with its attributes, events and status (everything but its end). */
  start(): Span;
}

/**
 * What a journaled step's body left to telemetry: work (metric records, the building of a span) and spans.
 * {@link release}, once the record committed, hands them to the batch that does the work, starts the spans and ends
 * them: a body killed before its record emits nothing.
 */
export class StepHold {
  private readonly work: Array<() => void> = [];
  private readonly spans: HeldSpan[] = [];
  private readonly started: Array<Span | undefined> = [];
  /** The step's record committed and its spans went out: whatever comes now goes at once. */
  released = false;

  /** Do `job` at the release. */
  defer(job: () => void): void {
    this.work.push(job);
  }

  /** Start and end `span` at the release. */
  hold(span: HeldSpan): void {
    this.spans.push(span);
  }

  /** A run's span is among the spans: the batch goes out with it (a caller with the run's result sees its spans). */
  endsRun = false;

  /** The record committed: whatever comes from now goes at once; the work and spans held go out with the batch. */
  release(): void {
    this.released = true;
    batch.add(this);
  }

  /** Do the work and end every span, now. */
  flush(): void {
    this.prepare();
    for (let index = 0; index < this.spans.length; index += 1) {
      const span = this.started[index];
      const held = this.spans[index]!;
      if (span !== undefined) contained(`record span "${held.name}"`, () => span.end(held.endTime));
    }
    this.spans.length = 0;
    this.started.length = 0;
  }

  private prepare(): void {
    for (let index = 0; index < this.work.length; index += 1) contained('record a step\'s metrics and spans', this.work[index]!);
    this.work.length = 0;
    while (this.started.length < this.spans.length) {
      const held = this.spans[this.started.length]!;
      this.started.push(contained(`record span "${held.name}"`, () => held.start()));
    }
  }
}

/**
 * Released holds waiting to go out together: a step's spans and metric records, made one step at a time between its
 * database round trips, cost several times what the same work costs made for several steps in a row (the tracing-on
 * bench: 1.08× → 1.045× ms/step). The batch goes out {@link spanBatchMs} after its first hold, at 64 holds, with a run's
 * span (so a caller that has the run's result has its spans) and at {@link flushHeldSpans}. The price: a process killed
 * within that delay of a step's record never exports that step's spans (a `BatchSpanProcessor`'s buffer loses its
 * spans the same way); a replayed step still emits nothing and a re-run one emits once more.
 */
class HoldBatch {
  delayMs = DEFAULT_SPAN_BATCH_MS;
  private readonly holds: StepHold[] = [];
  private timer: NodeJS.Timeout | undefined;

  add(hold: StepHold): void {
    this.holds.push(hold);
    if (hold.endsRun || this.delayMs === 0 || this.holds.length >= MAX_BATCHED_HOLDS) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.delayMs);
  }

  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (const hold of this.holds.splice(0)) hold.flush();
  }
}

/** Default {@link HoldBatch} delay (ms). */
export const DEFAULT_SPAN_BATCH_MS = 20;
const MAX_BATCHED_HOLDS = 64;
const batch = new HoldBatch();

/**
 * How long released steps' spans wait for others before going out together (0: each step's at its record).
 *
 * @example
 * batchHeldSpansFor(0);
 */
export function batchHeldSpansFor(delayMs: number): void {
  batch.flush();
  batch.delayMs = delayMs;
}

/**
 * Send every released step's spans and metric records now (an executor closing, a run's span emitted outside a step).
 *
 * @example
 * flushHeldSpans();
 */
export function flushHeldSpans(): void {
  batch.flush();
}

/** A tracer or meter that throws is reported to OpenTelemetry's diagnostics: the step, recorded, is not failed by it. */
function contained<T>(what: string, act: () => T): T | undefined {
  try {
    return act();
  } catch (error) {
    diag.error(`helix-agents-dbos: the tracer or meter failed to ${what}`, error);
    return undefined;
  }
}

/**
 * The holds of the journaled steps running, by the step's own context object: what {@link identifyStepsBy} names the
 * running step by (a plain lookup; an AsyncLocalStorage would make every promise of the process pay for its
 * propagation). The entry goes with its step.
 */
const heldByStep = new WeakMap<object, StepHold>();
let runningStep: () => object | undefined = () => undefined;
/** Only for a step body that runs where `runningStep` names nothing (never, with either journal): held all the same. */
const heldUnnamed = new AsyncLocalStorage<StepHold>();

/**
 * Tell the telemetry how to name the journaled step running in the current async context: an object of that step's
 * own, the same from its body's start to its end, another for every other step or attempt (the journal gives DBOS's
 * `DBOS.stepStatus`). Spans emitted there are held for {@link afterRecord}.
 *
 * @example
 * identifyStepsBy(() => DBOS.stepStatus);
 */
export function identifyStepsBy(step: () => object | undefined): void {
  runningStep = step;
}

/** The hold of the journaled step running here, if it is still holding. */
export function heldHere(): StepHold | undefined {
  const step = runningStep();
  const hold = step === undefined ? heldUnnamed.getStore() : heldByStep.get(step);
  return hold === undefined || hold.released ? undefined : hold;
}

/**
 * Run a durable step so that the spans its body emits go out only once `record` (the step, recorded) has resolved: a
 * body killed before its record committed emits nothing, and the step's re-run emits once. `hold` runs the body (in
 * the step's context, see {@link identifyStepsBy}). Returns `record`'s outcome; its spans go out with the batch of
 * released steps (see {@link HoldBatch}). Only while tracing; otherwise `record` runs as it is.
 *
 * @example
 * return afterRecord((hold) => journal.runStep(name, (record) => hold(() => body(record))));
 */
export function afterRecord<T>(record: (hold: <B>(body: () => Promise<B>) => Promise<B>) => Promise<T>): Promise<T> {
  const held = new StepHold();
  return record((body) => holdIn(held, body)).then(
    (value) => {
      held.release();
      return value;
    },
    (error: unknown) => {
      held.release();
      throw error;
    },
  );
}

function holdIn<B>(held: StepHold, body: () => Promise<B>): Promise<B> {
  const step = runningStep();
  if (step === undefined) return heldUnnamed.run(held, body);
  heldByStep.set(step, held);
  return body();
}

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
 * {@link release}, once the record committed, does the work, starts the spans and ends them: a body killed before its
 * record emits nothing.
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

  /** The record committed: do the work and end every span, now (before the workflow carries on). */
  release(): void {
    this.prepare();
    this.released = true;
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
 * the step's context, see {@link identifyStepsBy}). Returns `record`'s outcome; its spans have gone out before the
 * caller carries on (nothing the workflow does next, no next step, can be seen before them). Only while tracing;
 * otherwise `record` runs as it is.
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

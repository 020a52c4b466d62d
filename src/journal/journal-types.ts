import type { JournalKind } from '../types/journal.js';
import type { StepRecord } from './step-record.js';
import type { StepRecordConnection, StepRecordParticipant } from '../types/step-records.js';

export type { JournalKind } from '../types/journal.js';

/**
 * How a step records its output.
 *
 * @example
 * await runJournaledStep('CallLLMStep', body, { portableOutput: true });
 */
export interface StepOptions {
  /**
   * Record the output as DBOS's portable JSON (plain JSON, ~40 bytes less than the superjson envelope): for outputs
   * of plain JSON data only, as `undefined` members are dropped and dates become strings — on the first run and on a
   * replay alike, since the step returns what its record says. The public journal records DBOS's default format;
   * either journal replays either format.
   */
  portableOutput?: boolean;
  /**
   * Whether the step, when it deferred no writes, may leave its record to the workflow's next step (the fused journal
   * commits it in that step's record transaction: one transaction and one fsync fewer). Only for a step whose re-run
   * writes nothing (a crash before the next record re-runs it) and that is followed by a journaled step, with no
   * other DBOS operation between. The public journal records every step at once.
   */
  recordWithNext?: (output: unknown) => boolean;
  /**
   * The step's output is its workflow's result and the workflow does nothing after it (a root run's finish): the fused
   * journal writes DBOS's end of the workflow (status SUCCESS, its output) with the step's record, so nothing is
   * written when the workflow function returns (one transaction fewer after the last step). The public journal leaves
   * the end to DBOS.
   */
  endsWorkflow?: boolean;
  /**
   * Start the step's reads before the journal looks for its recorded outcome (they go out beside that look instead of
   * after it); the function it returns drops them when the step is replayed, or fails, instead of running its body.
   * Reads only: nothing the step writes may start here.
   */
  readAhead?: () => () => void;
}

/**
 * The one place that decides how an agent step's outcome and its effects are recorded, and how a replay finds them.
 * Both journals record every step as DBOS's own `operation_outputs` row under the next function id, so DBOS's tools
 * see the same steps, and a run recorded by one is replayed by the other.
 *
 * @example
 * const journal: StepJournal = { kind: 'public', runStep: (name, body) => DBOS.runStep(() => body(SEPARATE_RECORD), { name }), workflowCancelled };
 */
export interface StepJournal {
  readonly kind: JournalKind;
  /**
   * Run `body` as the next step of the calling workflow (inside a workflow body, not in a step): its function id is
   * reserved before any await, so concurrent steps keep their call order.
   */
  runStep<T>(name: string, body: (record: StepRecord) => Promise<T>, options: StepOptions): Promise<T>;
  /**
   * Whether DBOS records `workflowID` as CANCELLED — asked from a workflow body after a step failed, without
   * recording an operation.
   */
  workflowCancelled(workflowID: string): Promise<boolean>;
  /** Starts of workflows joined to a caller's transaction (the fused journal); none on the public journal. */
  readonly workflowStarts?: WorkflowStartJoin;
}

/**
 * DBOS's start of a workflow run inside a caller's transaction: its status and input rows commit with the caller's
 * writes (one transaction and one fsync where a start took two), or not at all.
 *
 * @example
 * const started = await join.start(workflowID, () => DBOS.startWorkflow(fn, { workflowID })(input), (init) =>
 *   withStartWrites(stores, body, init));
 */
export interface WorkflowStartJoin {
  /** Whether `participant` (a store's `stepRecords`) writes to DBOS's system database: only its transactions can join. */
  joins(participant: StepRecordParticipant | undefined): Promise<boolean>;
  /**
   * Call `start` (DBOS's start of workflow `workflowID`, from outside any workflow); DBOS's record of the start runs in
   * the transaction `transaction` runs, through `init` on its connection. `transaction` resolves with `undefined`
   * when its writes were refused (then its committed attempt did not call `init`, and the workflow does not start),
   * else with its value, having called `init` in the attempt that committed.
   */
  start<H, T>(
    workflowID: string,
    start: () => Promise<H>,
    transaction: (init: (connection: StepRecordConnection) => Promise<void>) => Promise<T | undefined>,
  ): Promise<JoinedWorkflowStart<H, T>>;
}

/**
 * What a {@link WorkflowStartJoin} start gives: the DBOS handle and the transaction's value, or neither (refused).
 *
 * @example
 * const { handle, value } = await join.start(workflowID, start, transaction);
 * if (handle === undefined) return retry();
 */
export type JoinedWorkflowStart<H, T> = { handle: H; value: T } | { handle?: undefined; value?: undefined };

import { DBOS } from '@dbos-inc/dbos-sdk';
import { stepDuration } from '../telemetry/agent-spans.js';
import { afterRecord, identifyStepsBy, telemetry } from '../telemetry/agent-telemetry.js';
import type { JournalKind, StepJournal, StepOptions, WorkflowStartJoin } from './journal-types.js';
import { publicJournal } from './public-journal.js';
import { SEPARATE_RECORD, type StepRecord } from './step-record.js';

/**
 * The fused journal, when this DBOS release has the internals it was verified against. Loaded once, here, by a
 * dynamic import that may fail: a DBOS without those internals still loads the package and runs the public journal.
 */
const fused: StepJournal | undefined = await import('./fused/fused-journal.js').then(
  (module) => module.fusedJournal(),
  () => undefined,
);

// A journaled step's spans are held by its DBOS step context (both journals run a body in one of its own).
identifyStepsBy(() => DBOS.stepStatus);

// Until an executor chooses (a recovering process may run steps before it constructs its executor): the environment's.
let active: StepJournal = journalFromEnvironment() === 'public' ? publicJournal : (fused ?? publicJournal);

/**
 * Record this process's steps with `kind` from now on (`DBOSAgentExecutor` calls it with its `journal` option).
 * `fused` falls back to `public` on a DBOS release the fused journal was not verified against. Returns the journal
 * in use. Either journal replays the other's records, so switching between processes (or restarts) is safe.
 *
 * @example
 * useJournal('public'); // 'public'
 */
export function useJournal(kind: JournalKind): JournalKind {
  active = kind === 'fused' ? (fused ?? publicJournal) : publicJournal;
  return active.kind;
}

/**
 * The journal this process records steps with.
 *
 * @example
 * activeJournal(); // 'fused' on DBOS 5.3.x
 */
export function activeJournal(): JournalKind {
  return active.kind;
}

/**
 * How the active journal joins a workflow's start to a caller's transaction (the fused journal), or `undefined` (the
 * public journal: DBOS's start commits on its own, after the caller's).
 *
 * @example
 * const join = workflowStartJoin();
 * if (join !== undefined && (await join.joins(stateStore.stepRecords))) await join.start(workflowID, start, transaction);
 */
export function workflowStartJoin(): WorkflowStartJoin | undefined {
  return active.workflowStarts;
}

/**
 * The journal the environment asks for: `HELIX_JOURNAL=public|fused`, else `fused` (a test switch: CI runs the
 * integration and crash suites with each).
 *
 * @example
 * useJournal(config.journal ?? journalFromEnvironment());
 */
export function journalFromEnvironment(): JournalKind {
  return process.env.HELIX_JOURNAL === 'public' ? 'public' : 'fused';
}

/**
 * Run `body` as a durable agent step of the calling workflow, recorded by the active journal (see {@link StepJournal}):
 * a recorded step returns its recorded outcome without running. Outside a workflow, or inside a step, `body` just
 * runs (writing on its own).
 *
 * @example
 * static call(input: CallLLMStepInput): Promise<CallLLMStepOutput> {
 *   return runJournaledStep('CallLLMStep', (record) => CallLLMStep.run(input, record), { portableOutput: true });
 * }
 */
export function runJournaledStep<T>(name: string, body: (record: StepRecord) => Promise<T>, options: StepOptions = {}): Promise<T> {
  if (!DBOS.isInWorkflow() || DBOS.isInStep()) return body(SEPARATE_RECORD);
  // Timed only when it really runs: a replay from the record takes no step time.
  if (!telemetry().tracing) return active.runStep(name, (record) => timedStep(name, Date.now(), body(record)), options);
  // Its spans go out once the step is recorded: a body killed before that emits none, its re-run emits once.
  return afterRecord((hold) => active.runStep(name, (record) => timedStep(name, Date.now(), hold(() => body(record))), options));
}

/**
 * Whether DBOS records `workflowID` as CANCELLED, asked from a workflow body without recording an operation: after a
 * step reported lost ownership (DBOS's cancel clears the owner), to tell a cancel from another process taking over.
 *
 * @example
 * if (await workflowCancelled(scope.workflowId)) await recordCancelledRun(stateStore, streamManager, scope);
 */
export function workflowCancelled(workflowID: string): Promise<boolean> {
  return active.workflowCancelled(workflowID);
}

/** The body's outcome, its duration recorded (`helix.agent.step.duration`) whether it returned or threw. */
function timedStep<T>(name: string, since: number, outcome: Promise<T>): Promise<T> {
  return outcome.finally(() => stepDuration(name, since));
}

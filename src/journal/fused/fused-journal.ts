import { DBOS } from '@dbos-inc/dbos-sdk';
import { functionIDGetIncrement, getCurrentContextStore, runInStepContext } from '@dbos-inc/dbos-sdk/internal/context';
import { DBOSExecutor } from '@dbos-inc/dbos-sdk/internal/dbos-executor';
import { DBOSStepNondeterminismError, DBOSUnexpectedStepError, DBOSWorkflowCancelledError, DBOSWorkflowConflictError } from '@dbos-inc/dbos-sdk/internal/error';
import { serializeFunctionInputOutput } from '@dbos-inc/dbos-sdk/internal/serialization';
import { globalParams } from '@dbos-inc/dbos-sdk/internal/utils';
import { withDbRetry } from '@dbos-inc/dbos-sdk/internal/system_database';
import type { PoolClient } from 'pg';
import { recordStepRow, writeAlone, type StepRecordRow } from './record-row.js';
import { recordWithWrites } from './record-transaction.js';
import { endRecorded, workflowEndOf } from './workflow-end.js';
import { fusedWorkflowStartJoin } from './workflow-start.js';
import { databaseFingerprint } from '../../database/database-fingerprint.js';
import { mayRunUnread, type RecordedFrontier } from './recorded-frontier.js';
import { sharesSystemDatabase, type RecordOutcome, type RecordWrite, type StepRecord } from '../step-record.js';
import type { StepJournal, StepOptions } from '../journal-types.js';
import { InternalError } from '../../errors/index.js';
import { preparedStatements } from '../../database/named-statements.js';

/** The recorded outcome of a step, as DBOS stores it, read together with the workflow's status. */
interface RecordedStep {
  status: string | null;
  output: string | null;
  error: string | null;
  function_name: string | null;
  serialization: string | null;
  /** The highest function id the workflow has recorded (any execution), null when none. */
  max_function_id: number | null;
}

/** Per workflow execution (its DBOS context): what its fused steps learnt about the workflow's recorded steps. */
const frontiers = new WeakMap<object, RecordedFrontier>();

/**
 * The fused journal: a step is recorded exactly as `@DBOS.step` records it (one `operation_outputs` row under the
 * next function id, owner-checked, with its start and end times), in one or two round trips instead of DBOS's
 * seven: a read of the recorded outcome together with the workflow's cancellation (skipped where no replay is
 * possible, see `mayRunUnread`), and the record — in ONE transaction with the step's effects when their stores
 * write to DBOS's system database (`StepRecord.defer`), else in one statement (`recordStepRow`). A recorded step
 * returns (or throws) its recorded outcome without running; a cancelled workflow throws
 * `DBOSWorkflowCancelledError`. The body runs in DBOS's step context (`DBOS.isInStep()`,
 * `DBOS.stepStatus.cancelSignal`). No DBOS-level retries or timeouts (the steps retry inside their bodies).
 *
 * @example
 * const journal = fusedJournal();
 * if (journal !== undefined) useJournal(journal);
 */
export function fusedJournal(dbosVersion: string = globalParams.dbosVersion): StepJournal | undefined {
  if (!fusedJournalSupported(dbosVersion)) return undefined;
  return { kind: 'fused', runStep: runFusedStep, workflowCancelled, workflowStarts: fusedWorkflowStartJoin() };
}

function runFusedStep<T>(name: string, body: (record: StepRecord) => Promise<T>, options: StepOptions): Promise<T> {
  // Reserved before any await, as DBOS does: concurrent steps keep their call order.
  const functionID = functionIDGetIncrement();
  const context = getCurrentContextStore();
  const workflowID = DBOS.workflowID;
  const executor = DBOSExecutor.globalInstance;
  if (context === undefined || workflowID === undefined || executor === undefined) {
    throw new InternalError(`${name} ran outside a DBOS workflow context; run it from a workflow body.`);
  }
  return runRecorded(executor, context, workflowID, functionID, name, body, options);
}

async function runRecorded<T>(
  executor: DBOSExecutor,
  context: NonNullable<ReturnType<typeof getCurrentContextStore>>,
  workflowID: string,
  functionID: number,
  name: string,
  body: (record: StepRecord) => Promise<T>,
  options: StepOptions,
): Promise<T> {
  const database = executor.systemDatabase;
  const startedAt = Date.now();
  const frontier = frontiers.get(context) ?? {};
  frontiers.set(context, frontier);
  // The previous step's row, left to this step's record (`recordWithNext`): it commits with this one, or alone first.
  const carried = frontier.carried;
  delete frontier.carried;
  const replayPossible = !mayRunUnread(frontier, functionID, startedAt);
  let firstLiveAfterReplay = false;
  // The step's own reads go out beside the read of its recorded outcome; dropped when the step does not run.
  const dropAhead = options.readAhead?.();
  if (replayPossible) {
    // Retried through connection failures, as DBOS retries its own reads.
    const recorded = await withDbRetry(() => readRecorded(database.pool, database.schemaName, workflowID, functionID)).catch((error: unknown) => {
      dropAhead?.();
      throw error;
    });
    if (recorded.status === 'CANCELLED' || recorded.function_name !== null) dropAhead?.();
    if (recorded.status === 'CANCELLED') throw new DBOSWorkflowCancelledError(workflowID);
    if (recorded.function_name !== null) return replay<T>(executor, recorded, workflowID, functionID, name);
    // The first step this execution found unrecorded, after steps an earlier execution recorded: it resumes them.
    firstLiveAfterReplay = frontier.knownMax === undefined && recorded.max_function_id !== null;
    frontier.knownMax ??= Number(recorded.max_function_id ?? 0);
  }

  const cancelWatch = database.watchForCancellation(workflowID);
  const writes: RecordWrite[] = [];
  const record: StepRecord = {
    joins: (participant) => sharesSystemDatabase(participant, () => databaseFingerprint(database.pool)),
    defer: (write) => void writes.push(write),
    atomicWithStep: true,
    ...(firstLiveAfterReplay ? { firstLiveAfterReplay } : {}),
  };
  let result: T;
  try {
    result = await runInStepContext(context, functionID, { getCancelSignal: () => cancelWatch.signal }, () => body(record));
    // A body that returned after its cancel signal fired (a tool that stopped) records nothing: the cancellation is
    // the outcome, reported as DBOS reports it (the record's owner check would report a lost ownership instead).
    if (cancelWatch.cancelled) await withDbRetry(() => database.checkIfCanceled(workflowID));
  } catch (error) {
    // Asked also when writes wait to be stored alone (the watch may not have seen a cancellation yet); through a
    // database outage, like the error's record below.
    if (cancelWatch.cancelled || writes.length > 0) await withDbRetry(() => database.checkIfCanceled(workflowID));
    // Lost ownership or the workflow's own cancellation: not the step's outcome, so nothing is recorded and its
    // chunks are dropped (a cancelled run's stream may be ended, reactivated and written by its retry meanwhile).
    if (error instanceof DBOSWorkflowConflictError || (error instanceof DBOSWorkflowCancelledError && error.workflowID === workflowID)) throw error;
    await writeAlone(database, carried === undefined ? writes : [carriedWrite(database, carried), ...writes]);
    await database.recordOperationError(workflowID, functionID, name, startedAt, error);
    throw error;
  } finally {
    cancelWatch.release();
  }
  const serialized = await serializeFunctionInputOutput(result, [name, '<result>'], executor.serializer, options.portableOutput === true ? 'portable' : undefined);
  const output = { output: serialized.stringified, serialization: serialized.sername };
  // A step whose output is its workflow's result writes DBOS's end of the workflow with its own record.
  const end = options.endsWorkflow === true ? await workflowEndOf(executor, context, serialized) : undefined;
  const step: StepRecordRow = { workflowID, functionID, name, startedAt, endedAt: Date.now(), ...output };
  if (end !== undefined) step.end = end;
  const recorded = () => {
    frontier.lastRecorded = { functionID, at: Date.now() };
    if (step.end?.written === true) endRecorded(database, workflowID, context.ownerXid, step.end.output);
  };
  if (writes.length === 0 && carried === undefined && end === undefined && options.recordWithNext?.(serialized.deserialized) === true) {
    // Left to the next step's record; recorded by this execution as far as that step's read is concerned.
    frontier.carried = step;
    frontier.lastRecorded = { functionID, at: Date.now() };
    return serialized.deserialized;
  }
  if (writes.length === 0 && carried === undefined) {
    // One statement: the ownership check and the insert, the row DBOS records for a step's result.
    await withDbRetry(() => recordStepRow(database.pool, database, step));
    recorded();
    return serialized.deserialized;
  }
  let outcome: RecordOutcome;
  try {
    outcome = await recordWithWrites(database, writes, step, carried);
  } catch (error) {
    // Refused (lost ownership, or another execution recorded the step): its writes are not ours to flush.
    if (error instanceof DBOSWorkflowConflictError) throw error;
    if (!(error instanceof DBOSStepNondeterminismError)) for (const write of writes) write.abandoned?.();
    await database.recordOperationError(workflowID, functionID, name, startedAt, error);
    throw error;
  }
  recorded();
  for (const write of writes) write.committed?.(outcome);
  return serialized.deserialized;
}

/** A carried row as a write of a failed step's own transaction (`writeAlone`): recorded before the step's error. */
function carriedWrite(database: DBOSExecutor['systemDatabase'], carried: StepRecordRow): RecordWrite {
  return { within: (connection) => recordStepRow(connection, database, carried).then(() => undefined) };
}

async function readRecorded(pool: { query: PoolClient['query'] }, schema: string, workflowID: string, functionID: number): Promise<RecordedStep> {
  const { rows } = await preparedStatements(pool).query<RecordedStep>(
    `SELECT status.status, output.output, output.error, output.function_name, output.serialization,
       (SELECT MAX(function_id) FROM "${schema}".operation_outputs WHERE workflow_uuid = $1) AS max_function_id
     FROM (SELECT $1::text AS workflow_uuid) AS wanted
     LEFT JOIN "${schema}".workflow_status AS status ON status.workflow_uuid = wanted.workflow_uuid
     LEFT JOIN "${schema}".operation_outputs AS output ON output.workflow_uuid = wanted.workflow_uuid AND output.function_id = $2`,
    [workflowID, functionID],
  );
  return rows[0] ?? { status: null, output: null, error: null, function_name: null, serialization: null, max_function_id: null };
}

async function replay<T>(executor: DBOSExecutor, recorded: RecordedStep, workflowID: string, functionID: number, name: string): Promise<T> {
  if (recorded.function_name !== name) throw new DBOSUnexpectedStepError(workflowID, functionID, name, recorded.function_name ?? '?');
  return DBOSExecutor.reviveResultOrError<T>(
    { output: recorded.output, error: recorded.error, functionName: recorded.function_name, serialization: recorded.serialization },
    executor.serializer,
  );
}

/** DBOS releases whose internals the fused journal was verified against (its record and replay are tested on them). */
const VERIFIED_DBOS_RELEASE = /^5\.3\.\d+$/;

/**
 * Whether the fused journal may run with this DBOS version (else the public journal, `DBOS.runStep`).
 *
 * @example
 * fusedJournalSupported('5.3.0'); // true
 * fusedJournalSupported('5.4.0'); // false: the public journal records every step
 */
export function fusedJournalSupported(dbosVersion: string): boolean {
  return VERIFIED_DBOS_RELEASE.test(dbosVersion);
}

/** DBOS's record of `workflowID` says CANCELLED — read outside the workflow's context (no step, no function id). */
async function workflowCancelled(workflowID: string): Promise<boolean> {
  const executor = DBOSExecutor.globalInstance;
  if (executor === undefined) return false;
  const status = await withDbRetry(() => executor.systemDatabase.getWorkflowStatus(workflowID));
  return status?.status === 'CANCELLED';
}

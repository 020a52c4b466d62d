import type { getCurrentContextStore } from '@dbos-inc/dbos-sdk/internal/context';
import type { DBOSExecutor } from '@dbos-inc/dbos-sdk/internal/dbos-executor';
import { DBOSJSON, DBOSPortableJSON, serializeFunctionInputOutput } from '@dbos-inc/dbos-sdk/internal/serialization';
import type { SystemDatabase, WorkflowEnd } from './record-row.js';

type WorkflowContext = NonNullable<ReturnType<typeof getCurrentContextStore>>;

/** Per workflow id: the end a step of this process recorded for the execution owning `ownerXid`. */
const recordedEnds = new Map<string, { ownerXid: string | undefined; output: string | null }>();
/** System databases whose outcome writes consult `recordedEnds`. */
const adopted = new WeakSet<SystemDatabase>();

/**
 * DBOS's end of the workflow for a step whose output is its workflow's result (`StepOptions.endsWorkflow`): the
 * output serialized as DBOS serializes a workflow's result, to be written with the step's record. Undefined when DBOS
 * must write the end itself: the workflow used a data source (DBOS deletes its checkpoints before the end).
 *
 * @example
 * const end = await workflowEndOf(executor, context, serialized); // the step's serialized output
 */
export async function workflowEndOf(
  executor: DBOSExecutor,
  context: WorkflowContext,
  step: { deserialized: unknown; stringified: string; sername: string },
): Promise<WorkflowEnd | undefined> {
  if ((context.usedDataSources?.size ?? 0) > 0) return undefined;
  const type: string | undefined = context.serializationType;
  // As DBOS names a serialization type (`serializationName`, not exported).
  const workflowSerializer =
    type === 'portable' ? DBOSPortableJSON.name() : type === 'native' ? DBOSJSON.name() : executor.serializer.name();
  // The step's own text when it was serialized the workflow's way: the same text again (checked when DBOS records).
  if (step.sername === workflowSerializer) return { output: step.stringified, written: false };
  const path = ['<workflow>', '<result>'];
  const serialized = await serializeFunctionInputOutput(step.deserialized, path, executor.serializer, context.serializationType);
  return { output: serialized.stringified, written: false };
}

/**
 * The step's record wrote its workflow's end: when the workflow function returns, DBOS's `recordWorkflowOutput` for
 * that execution writes nothing (one transaction fewer after the last step). Should the function return another
 * result than the step's (never, by construction), its output row is corrected to what DBOS serialized.
 *
 * @example
 * if (step.end?.written) endRecorded(database, workflowID, ownerXid, step.end.output);
 */
export function endRecorded(database: SystemDatabase, workflowID: string, ownerXid: string | undefined, output: string | null): void {
  adoptRecordedEnds(database);
  recordedEnds.set(workflowID, { ownerXid, output });
}

function adoptRecordedEnds(database: SystemDatabase): void {
  if (adopted.has(database)) return;
  adopted.add(database);
  const recordOutput = database.recordWorkflowOutput.bind(database);
  const recordError = database.recordWorkflowError.bind(database);
  database.recordWorkflowOutput = async (workflowID, status, ownerXid) => {
    const ended = recordedEnds.get(workflowID);
    if (ended === undefined || ended.ownerXid !== ownerXid) return recordOutput(workflowID, status, ownerXid);
    recordedEnds.delete(workflowID);
    if (ended.output !== (status.output ?? null)) {
      const correct = `UPDATE "${database.schemaName}".workflow_output SET output = $2 WHERE workflow_uuid = $1`;
      await database.pool.query(correct, [workflowID, status.output ?? null]);
    }
    return true;
  };
  // A workflow that failed after its ending step (never, by construction): DBOS finds the end recorded and adopts it.
  database.recordWorkflowError = (workflowID, status, ownerXid) => {
    recordedEnds.delete(workflowID);
    return recordError(workflowID, status, ownerXid);
  };
}

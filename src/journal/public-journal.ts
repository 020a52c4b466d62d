import { DBOS } from '@dbos-inc/dbos-sdk';
import { AsyncLocalStorage } from 'node:async_hooks';
import { withBatchRecord } from './batch-record.js';
import type { StepJournal } from './journal-types.js';
import { cancelledOutsideWorkflows } from './outside-workflows.js';
import { SEPARATE_RECORD, type StepRecord } from './step-record.js';

/** One execution of a workflow body opened with {@link journalExecution}: whether a step of it ran live yet. */
interface Execution {
  readonly workflowID: string | undefined;
  liveSeen: boolean;
}

const executions = new AsyncLocalStorage<Execution>();

/** The record of the first live step of an execution whose earlier steps an earlier execution recorded. */
const FIRST_LIVE_RECORD: StepRecord = { ...SEPARATE_RECORD, firstLiveAfterReplay: true };

/**
 * Run `body`, one execution of a workflow body whose first step is its first operation, as one execution for the
 * public journal: the first of its steps that runs live (not replayed) with a function id above 0 gets
 * `firstLiveAfterReplay` (the fused journal tells it in every workflow, from its own reads). No I/O; deterministic.
 *
 * @example
 * return journalExecution(() => recordedTurn(agent, scope, input, options));
 */
export function journalExecution<T>(body: () => Promise<T>): Promise<T> {
  return executions.run({ workflowID: DBOS.workflowID, liveSeen: false }, body);
}

/**
 * The public journal: every step is a `DBOS.runStep` (DBOS's own record, four round trips). A step's writes on the
 * database of a state store that lends connections commit in ONE pipelined transaction there before DBOS records the
 * step (`withBatchRecord`); the others write on their own. It needs nothing beyond DBOS's public API, so it runs on
 * every DBOS release; CI runs the integration and crash suites on it too (`HELIX_JOURNAL=public`).
 *
 * @example
 * useJournal('public');
 */
export const publicJournal: StepJournal = {
  kind: 'public',
  runStep: (name, body, options) => {
    // The step's own reads go out beside DBOS's look for its recorded outcome; dropped when DBOS replays it.
    const dropAhead = options.readAhead?.();
    let ran = false;
    const step = DBOS.runStep(() => {
      ran = true;
      return withBatchRecord(liveRecord(), body, name);
    }, { name });
    if (dropAhead === undefined) return step;
    return step.finally(() => {
      if (!ran) dropAhead();
    });
  },
  // Inside a workflow body DBOS records a status read as an operation; read it from outside the workflow's context.
  workflowCancelled: cancelledOutsideWorkflows,
};

/** The record of a step running live (inside its body): the first of its execution after replayed steps is told so. */
function liveRecord(): StepRecord {
  const execution = executions.getStore();
  // A workflow started from inside another's execution inherits its async context: not its execution.
  if (execution === undefined || execution.liveSeen || execution.workflowID !== DBOS.workflowID) return SEPARATE_RECORD;
  execution.liveSeen = true;
  return (DBOS.stepID ?? 0) > 0 ? FIRST_LIVE_RECORD : SEPARATE_RECORD;
}

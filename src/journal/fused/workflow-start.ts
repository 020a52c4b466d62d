import type { ClientBase } from 'pg';
import { DBOSExecutor } from '@dbos-inc/dbos-sdk/internal/dbos-executor';
import { InternalError } from '../../errors/index.js';
import { canSendAhead } from '../../database/send-ahead.js';
import { databaseFingerprint } from '../../database/database-fingerprint.js';
import { sharesSystemDatabase } from '../step-record.js';
import type { StepRecordConnection, StepRecordParticipant } from '../../types/step-records.js';
import type { JoinedWorkflowStart, WorkflowStartJoin } from '../journal-types.js';
import type { SystemDatabase } from './record-row.js';

type InitWorkflowStatus = SystemDatabase['initWorkflowStatus'];
type InitOutcome = Awaited<ReturnType<InitWorkflowStatus>>;

/** Per workflow id: the caller's transaction its DBOS start is to run in (taken once, by DBOS's `initWorkflowStatus`). */
const joining = new Map<string, (init: (connection: StepRecordConnection) => Promise<void>) => Promise<boolean>>();
/** System databases whose `initWorkflowStatus` consults `joining`. */
const adopted = new WeakSet<SystemDatabase>();

/**
 * The fused journal's {@link WorkflowStartJoin}: DBOS's own start of a workflow (its status and input rows, written by
 * DBOS's `initWorkflowStatus` on the caller's connection, as `DBOSClient.enqueueInTransaction` writes an enqueue)
 * commits in the caller's transaction, with its writes: one transaction where a start took two.
 *
 * @example
 * const join = fusedWorkflowStartJoin();
 * const start = () => DBOS.startWorkflow(fn, { workflowID })(input);
 * if (await join.joins(stateStore.stepRecords)) await join.start(workflowID, start, transaction);
 */
export function fusedWorkflowStartJoin(): WorkflowStartJoin {
  return { joins, start: startJoined };
}

function joins(participant: StepRecordParticipant | undefined): Promise<boolean> {
  const executor = DBOSExecutor.globalInstance;
  if (executor === undefined) return Promise.resolve(false);
  return sharesSystemDatabase(participant, () => databaseFingerprint(executor.systemDatabase.pool));
}

function startJoined<H, T>(
  workflowID: string,
  start: () => Promise<H>,
  transaction: (init: (connection: StepRecordConnection) => Promise<void>) => Promise<T | undefined>,
): Promise<JoinedWorkflowStart<H, T>> {
  const executor = DBOSExecutor.globalInstance;
  if (executor === undefined) throw new InternalError('A joined workflow start needs a launched DBOS.');
  return startJoinedOn(executor.systemDatabase, workflowID, start, transaction);
}

/**
 * @internal `WorkflowStartJoin.start` on `database` (DBOS's system database; a test's stand-in).
 *
 * @example
 * const { handle } = await startJoinedOn(executor.systemDatabase, workflowID, start, transaction);
 */
export async function startJoinedOn<H, T>(
  database: SystemDatabase,
  workflowID: string,
  start: () => Promise<H>,
  transaction: (init: (connection: StepRecordConnection) => Promise<void>) => Promise<T | undefined>,
): Promise<JoinedWorkflowStart<H, T>> {
  adoptJoinedStarts(database);
  let value: T | undefined;
  joining.set(workflowID, async (init) => {
    value = await transaction(init);
    return value !== undefined;
  });
  try {
    const handle = await start();
    if (value === undefined) throw new InternalError('DBOS started a joined workflow without recording its start.');
    return { handle, value };
  } catch (error) {
    if (error instanceof StartNotTaken) return {};
    throw error;
  } finally {
    joining.delete(workflowID);
  }
}

/** The caller's transaction committed without DBOS's start (its writes were refused): the workflow does not start. */
class StartNotTaken extends Error {
  constructor() {
    super('The start was not taken.');
  }
}

function adoptJoinedStarts(database: SystemDatabase): void {
  if (adopted.has(database)) return;
  adopted.add(database);
  const init: InitWorkflowStatus = database.initWorkflowStatus.bind(database);
  database.initWorkflowStatus = async (initStatus, creatorXid, client, reusePolicy) => {
    const transaction = client === undefined ? joining.get(initStatus.workflowUUID) : undefined;
    if (transaction === undefined) return init(initStatus, creatorXid, client, reusePolicy);
    joining.delete(initStatus.workflowUUID);
    // The outcome of the last attempt that ran DBOS's start (an attempt may fail and its transaction run again).
    let outcome: InitOutcome | undefined;
    const taken = await transaction(async (connection) => {
      outcome = await init(initStatus, creatorXid, startClient(connection, database.schemaName), reusePolicy);
      // A fresh workflow id is always this start's; should another start hold it, nothing of this one commits.
      if (!outcome.shouldExecuteOnThisExecutor) throw new InternalError('A joined workflow start found its workflow started already.');
    });
    if (!taken) throw new StartNotTaken();
    if (outcome === undefined) throw new InternalError('A joined start committed without running DBOS\'s start.');
    return outcome;
  };
}

/**
 * DBOS's start statements on the caller's connection (DBOS uses only its `query`). The input row's insert, whose answer
 * DBOS does not read (DBOS 5.3: `ON CONFLICT DO NOTHING`, its result unused), is sent ahead when the connection takes
 * statements sent ahead: it goes out with the transaction's closing statement instead of a round trip of its own, and
 * its failure fails the transaction.
 */
function startClient(connection: StepRecordConnection, schemaName: string): ClientBase {
  const inputRow = `INSERT INTO "${schemaName}".workflow_input `;
  const query = (text: string, values?: unknown[]): Promise<unknown> => {
    if (!canSendAhead(connection) || !text.startsWith(inputRow)) return connection.query(text, values);
    return connection.sendAhead(text, values ?? [], () => undefined).then(() => ({ rows: [], rowCount: 1 }));
  };
  return { query } as unknown as ClientBase;
}

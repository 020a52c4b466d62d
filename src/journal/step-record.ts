import type { SqlConnection } from '../store/postgres/database.js';
import type { StepRecordConnections, StepRecordParticipant } from '../types/step-records.js';
import type { UsageRecord } from '../types/usage.js';
import type { UsageStore } from '../usage/usage-store.js';
import { InternalError } from '../errors/index.js';

/**
 * Work a step hands to its record: it runs inside the transaction that records the step's output, so it is durable
 * exactly when the step is (a crash before the COMMIT leaves neither; a replay finds both).
 *
 * @example
 * record.defer({ within: (connection) => connection.query('SELECT 1').then(() => undefined) });
 */
export interface RecordWrite {
  /** The writes, on the record's connection inside its transaction (may run again when the transaction is retried). */
  within(connection: SqlConnection): Promise<void>;
  /** The transaction committed; `outcome.transactionId` is its id (the `xmin` of every row it wrote), when known. */
  committed?(outcome: RecordOutcome): void;
  /** The record's transaction failed for good (the step fails): undo any hand-over (best effort, must not throw). */
  abandoned?(): void;
}

/**
 * What a committed record transaction reports to its writes.
 *
 * @example
 * const outcome: RecordOutcome = { transactionId: '1234' };
 */
export interface RecordOutcome {
  /** The committed transaction's id as Postgres's 32-bit `xid` (text), when the record transaction read it. */
  transactionId?: string;
}

/**
 * What a journaled step's body may ask of its record (see `runJournaledStep`).
 *
 * @example
 * if (await record.joins(streamManager.stepRecords)) record.defer(write); else await flushAlone();
 */
export interface StepRecord {
  /**
   * Whether the writes of the component declaring `participant` (its `stepRecords`) can join the record's transaction
   * (it writes to DBOS's system database); `undefined` (a component that declares none) never joins.
   */
  joins(participant: StepRecordParticipant | undefined): Promise<boolean>;
  /** Commit `write` with the step's record; only after `joins` said yes for everything it writes. */
  defer(write: RecordWrite): void;
  /**
   * True for the first step an execution of the workflow runs live when an earlier execution recorded the steps
   * before it (a recovery after a crash, or `DBOS.resumeWorkflow` of a cancelled run); absent otherwise. The public
   * journal tells it only inside `journalExecution` (the fused journal in every workflow).
   */
  readonly firstLiveAfterReplay?: boolean;
  /**
   * True when the deferred writes commit in one transaction with the step's own record (the fused journal): once they
   * are stored the step is recorded, so its body never runs again and writes none of them again. Absent when they
   * commit before the record (the public journal's batch record: a crash between them runs the body again).
   */
  readonly atomicWithStep?: boolean;
}

/**
 * A record nothing can join (the public journal, or outside a workflow): every step writes on its own.
 *
 * @example
 * await body(SEPARATE_RECORD);
 */
export const SEPARATE_RECORD: StepRecord = {
  joins: async () => false,
  defer: () => {
    throw new InternalError('This step record takes no writes; check joins() first.');
  },
};

/**
 * `participant` when it joins `record` (it declares step records on the record's database), else `undefined`.
 *
 * @example
 * const streams = await joining(record, streamManager.stepRecords);
 */
export async function joining<P extends StepRecordParticipant>(record: StepRecord, participant: P | undefined): Promise<P | undefined> {
  return participant !== undefined && (await record.joins(participant)) ? participant : undefined;
}

/** Per participant: whether it shares the database of each other participant it was compared with (or DBOS's). */
const verdicts = new WeakMap<StepRecordParticipant, WeakMap<object, Promise<boolean>>>();
/** The key of the verdicts about DBOS's system database. */
const SYSTEM_DATABASE = {};

/**
 * Whether `participant` (a component's declared `stepRecords`) writes to the database behind `systemFingerprint`
 * (answered once per participant and process; a component that declares none writes on its own, and one whose
 * question failed writes on its own this time and is asked again next time).
 *
 * @example
 * const joins = await sharesSystemDatabase(stateStore.stepRecords, () => databaseFingerprint(systemPool));
 */
export function sharesSystemDatabase(participant: StepRecordParticipant | undefined, systemFingerprint: () => Promise<string>): Promise<boolean> {
  return sameDatabase(participant, SYSTEM_DATABASE, systemFingerprint);
}

/**
 * Whether `participant` lends connections of its pool for a transaction the caller runs (`withConnection`, optional on
 * a state store's `stepRecords`).
 *
 * @example
 * if (lendsConnections(stateStore.stepRecords)) await transactionOnLent(stateStore.stepRecords, body);
 */
export function lendsConnections<P extends StepRecordParticipant>(participant: P): participant is P & StepRecordConnections {
  return typeof (participant as Partial<StepRecordConnections>).withConnection === 'function';
}

/**
 * Whether two components' declared `stepRecords` write to the same database (answered once per pair and process, as
 * {@link sharesSystemDatabase}).
 *
 * @example
 * const together = await sharesDatabase(streamManager.stepRecords, stateStore.stepRecords);
 */
export function sharesDatabase(participant: StepRecordParticipant | undefined, other: StepRecordParticipant): Promise<boolean> {
  return sameDatabase(participant, other, () => other.databaseFingerprint());
}

function sameDatabase(participant: StepRecordParticipant | undefined, key: object, otherFingerprint: () => Promise<string>): Promise<boolean> {
  if (participant === undefined) return Promise.resolve(false);
  let known = verdicts.get(participant);
  if (known === undefined) {
    known = new WeakMap();
    verdicts.set(participant, known);
  }
  let verdict = known.get(key);
  if (verdict === undefined) {
    const asked = known;
    verdict = Promise.all([participant.databaseFingerprint(), otherFingerprint()]).then(
      ([own, other]) => own === other,
      () => {
        // A failed question (a database restarting) is asked again by the next step, not answered for the process.
        asked.delete(key);
        return false;
      },
    );
    known.set(key, verdict);
  }
  return verdict;
}

/**
 * Record usage as part of a step's record when the usage store declares `stepRecords` and writes to DBOS's system
 * database (no write of its own, `recordOn` in the record's transaction); otherwise on its own, at once. Idempotent
 * by record id either way.
 *
 * @example
 * await recordUsageWith(record, usageStore, [{ id: `${runId}:${step}:llm`, ... }]);
 */
export async function recordUsageWith(record: StepRecord, usageStore: Pick<UsageStore, 'record' | 'stepRecords'> | undefined, records: UsageRecord[]): Promise<void> {
  if (usageStore === undefined) return;
  const stepRecords = usageStore.stepRecords;
  if (stepRecords === undefined || !(await record.joins(stepRecords))) return usageStore.record(records);
  record.defer({ within: (connection) => stepRecords.recordOn(connection, records) });
}

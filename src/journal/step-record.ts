import type { SqlConnection } from '../store/postgres/database.js';
import type { UsageRecord } from '../types/usage.js';
import { InternalError } from '../errors/index.js';

/**
 * A store or stream manager whose writes can commit in the same Postgres transaction as DBOS's record of a step,
 * when it writes to DBOS's system database (same database of the same server; see `databaseFingerprint`).
 *
 * @example
 * const participant: RecordParticipant = { databaseFingerprint: () => databaseFingerprint(pool) };
 */
export interface RecordParticipant {
  /** The fingerprint of the database this component writes to. */
  databaseFingerprint(): Promise<string>;
}

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
 * if (await record.joins(streamManager)) record.defer(write); else await flushAlone();
 */
export interface StepRecord {
  /** Whether `participant`'s writes can join the record's transaction (it writes to DBOS's system database). */
  joins(participant: unknown): Promise<boolean>;
  /** Commit `write` with the step's record; only after `joins` said yes for everything it writes. */
  defer(write: RecordWrite): void;
}

/**
 * A record nothing can join (outside the lean path): every step writes on its own.
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
 * Whether `value` offers {@link RecordParticipant}.
 *
 * @example
 * if (isRecordParticipant(stateStore)) await stateStore.databaseFingerprint();
 */
export function isRecordParticipant(value: unknown): value is RecordParticipant {
  return typeof (value as Partial<RecordParticipant> | null)?.databaseFingerprint === 'function';
}

const verdicts = new WeakMap<object, Promise<boolean>>();

/**
 * Whether `participant` writes to the database behind `systemFingerprint` (answered once per participant and
 * process; a participant that cannot tell writes on its own, and one whose question failed writes on its own this
 * time and is asked again next time).
 *
 * @example
 * const joins = await sharesSystemDatabase(stateStore, () => databaseFingerprint(systemPool));
 */
export function sharesSystemDatabase(participant: unknown, systemFingerprint: () => Promise<string>): Promise<boolean> {
  if (!isRecordParticipant(participant)) return Promise.resolve(false);
  let verdict = verdicts.get(participant);
  if (verdict === undefined) {
    verdict = Promise.all([participant.databaseFingerprint(), systemFingerprint()]).then(
      ([own, system]) => own === system,
      () => {
        // A failed question (a database restarting) is asked again by the next step, not answered for the process.
        verdicts.delete(participant);
        return false;
      },
    );
    verdicts.set(participant, verdict);
  }
  return verdict;
}

/** A usage store that can write inside a caller's transaction on its database (`PostgresUsageStore`). */
interface UsageOnConnection {
  record(records: UsageRecord[]): Promise<void>;
  recordOn(connection: SqlConnection, records: UsageRecord[]): Promise<void>;
}

/**
 * Record usage as part of a step's record when the usage store writes to DBOS's system database (no write of its
 * own); otherwise on its own, at once. Idempotent by record id either way.
 *
 * @example
 * await recordUsageWith(record, usageStore, [{ id: `${runId}:${step}:llm`, ... }]);
 */
export async function recordUsageWith(record: StepRecord, usageStore: { record(records: UsageRecord[]): Promise<void> } | undefined, records: UsageRecord[]): Promise<void> {
  if (usageStore === undefined) return;
  const joinable = typeof (usageStore as Partial<UsageOnConnection>).recordOn === 'function';
  if (!joinable || !(await record.joins(usageStore))) return usageStore.record(records);
  record.defer({ within: (connection) => (usageStore as UsageOnConnection).recordOn(connection, records) });
}

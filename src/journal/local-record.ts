import type { StepRecordParticipant, StepRecordTransactions } from '../types/step-records.js';
import type { RecordWrite, StepRecord } from './step-record.js';

/** Where the public journal commits a step's deferred writes: the process's state store (see {@link useLocalRecords}). */
let anchor: StepRecordTransactions | undefined;

const verdicts = new WeakMap<StepRecordParticipant, { anchor: StepRecordTransactions; shared: Promise<boolean> }>();

/**
 * Commit the public journal's deferred step writes in transactions of `next` (the executor's state store's step
 * records; `undefined`: every step writes on its own). The last executor constructed in a process decides, as for the
 * journal itself.
 *
 * @example
 * useLocalRecords(stateStore.stepRecords);
 */
export function useLocalRecords(next: StepRecordTransactions | undefined): void {
  anchor = next;
}

/**
 * Run `body` with a record whose writes commit in ONE transaction of the state store (before DBOS records the step):
 * components on the state store's database join it; others write on their own. Without an anchor, `base` as is.
 * The writes run again when that transaction is retried; they are abandoned when it fails for good.
 *
 * @example
 * return DBOS.runStep(() => withLocalRecord(liveRecord(), body), { name });
 */
export async function withLocalRecord<T>(base: StepRecord, body: (record: StepRecord) => Promise<T>): Promise<T> {
  const local = anchor;
  if (local === undefined) return body(base);
  const writes: RecordWrite[] = [];
  const record: StepRecord = {
    ...base,
    joins: (participant) => sharesAnchorDatabase(local, participant),
    defer: (write) => void writes.push(write),
  };
  const result = await body(record);
  if (writes.length === 0) return result;
  try {
    await local.transaction(async (connection) => {
      for (const write of writes) await write.within(connection);
    });
  } catch (error) {
    for (const write of writes) write.abandoned?.();
    throw error;
  }
  for (const write of writes) write.committed?.({});
  return result;
}

function sharesAnchorDatabase(local: StepRecordTransactions, participant: StepRecordParticipant | undefined): Promise<boolean> {
  if (participant === undefined) return Promise.resolve(false);
  if (participant === local) return Promise.resolve(true);
  let verdict = verdicts.get(participant);
  if (verdict === undefined || verdict.anchor !== local) {
    const shared = Promise.all([participant.databaseFingerprint(), local.databaseFingerprint()]).then(
      ([own, other]) => own === other,
      () => {
        verdicts.delete(participant); // a failed question is asked again by the next step
        return false;
      },
    );
    verdict = { anchor: local, shared };
    verdicts.set(participant, verdict);
  }
  return verdict.shared;
}

import { DBOS, Error as DBOSErrors } from '@dbos-inc/dbos-sdk';
import type { StepRecordConnections } from '../types/step-records.js';
import { cancelledOutsideWorkflows } from './outside-workflows.js';
import { InternalError } from '../errors/index.js';
import { closeReadingTransactionId, pipelinedTransaction, retryingGuarded, type TransactionEnds } from './pipelined-transaction.js';
import { lendsConnections, sharesDatabase, type RecordOutcome, type RecordWrite, type StepRecord } from './step-record.js';

/** The public journal's batch transaction records nothing of its own: it closes by reading its id for the writes. */
const BATCH_ENDS: TransactionEnds = { closing: closeReadingTransactionId };

/**
 * Run `body` (a step's body, inside `DBOS.runStep`) with a batch record: the first participant the body asks about
 * that lends connections (`StepRecordConnections`: the Postgres state store's `stepRecords`) anchors it, and every
 * participant on the anchor's database joins it. What the body defers commits in ONE pipelined transaction on a
 * connection the anchor lends (`pipelinedTransaction`: BEGIN, the writes and COMMIT sent together; an optimistic step
 * commit's write batch rides in its closing statement), once the body returned — so before DBOS records the step: a
 * crash between the two re-runs the step, whose keyed writes (checkpoint id, chunk keys, usage and message ids) then
 * store nothing twice. A participant asked before any anchor, or on another database, writes on its own, as on a
 * record nothing joins. When the transaction fails for good, the writes are abandoned and the step fails; when the
 * body throws, what it deferred is still written (best effort) before its error goes on. `base`'s
 * `firstLiveAfterReplay` is kept. `name`: the step's (for the crash drills' probe only).
 *
 * @example
 * runStep: (name, body) => DBOS.runStep(() => withBatchRecord(liveRecord(), body, name), { name }),
 */
export async function withBatchRecord<T>(base: StepRecord, body: (record: StepRecord) => Promise<T>, name = ''): Promise<T> {
  let anchor: StepRecordConnections | undefined;
  const writes: RecordWrite[] = [];
  const record: StepRecord = {
    ...base,
    joins: async (participant) => {
      if (participant === undefined) return false;
      if (anchor === undefined) {
        if (!lendsConnections(participant)) return false;
        anchor = participant; // taken before any await: the first to ask anchors the record
        return true;
      }
      return participant === anchor || sharesDatabase(participant, anchor);
    },
    defer: (write) => {
      if (anchor === undefined) throw new InternalError('This step record has no anchor yet; check joins() first.');
      writes.push(write);
    },
  };
  let result: T;
  try {
    result = await body(record);
  } catch (error) {
    // What the body handed over before it failed (chunks, usage) is written all the same, as on its own it would be.
    if (anchor !== undefined && writes.length > 0) await commitBatch(anchor, writes).catch(() => undefined);
    throw error;
  }
  if (anchor !== undefined && writes.length > 0) {
    await refuseCancelled();
    await commitBatch(anchor, writes);
    await probe?.(name);
  }
  return result;
}

/**
 * A body that returned after its workflow was cancelled (a tool that stopped on the cancel) records nothing, as on the
 * fused journal: DBOS records no row for it either, and a resumed workflow runs the step again, which must then find
 * nothing of this attempt (not its interrupted result in the history). The cancellation is the outcome. A cancel
 * signal that a resume reversed meanwhile commits as usual.
 */
async function refuseCancelled(): Promise<void> {
  const workflowID = DBOS.workflowID;
  if (DBOS.stepStatus?.cancelSignal.aborted !== true || workflowID === undefined) return;
  if (await cancelledOutsideWorkflows(workflowID)) throw new DBOSErrors.DBOSWorkflowCancelledError(workflowID);
}

let probe: ((stepName: string) => Promise<void>) | undefined;

/**
 * @internal Install (or with `undefined` remove) the crash drills' probe: called with the step's name once a batch
 * record committed, before DBOS records the step. Never set in production.
 *
 * @example
 * setBatchRecordProbeForTesting(async (name) => { if (name === 'ExecuteToolStep:lookup') await new Promise(() => {}); });
 */
export function setBatchRecordProbeForTesting(next: typeof probe): void {
  probe = next;
}

/** `writes` in one pipelined transaction on a connection `anchor` lends; committed or abandoned, told either way. */
async function commitBatch(anchor: StepRecordConnections, writes: readonly RecordWrite[]): Promise<void> {
  let outcome: RecordOutcome;
  try {
    outcome = await anchor.withConnection((client) => retryingGuarded(() => pipelinedTransaction(client, writes, BATCH_ENDS)));
  } catch (error) {
    for (const write of writes) write.abandoned?.();
    throw error;
  }
  for (const write of writes) write.committed?.(outcome);
}

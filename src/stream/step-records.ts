import type { StepRecordConnection, StepRecordParticipant } from '../types/step-records.js';
import type { StreamWriter } from './stream-manager.js';

/**
 * Chunks a writer handed to a caller's transaction (see {@link StreamManagerStepRecords.handOver}).
 *
 * @example
 * const handover = await streams.stepRecords.handOver(writer);
 * if (handover !== undefined) await handover.within(client); // inside BEGIN … COMMIT
 */
export interface ChunkHandover {
  /**
   * Append the handed chunks on `connection`, inside its transaction (again when that transaction is retried: chunks
   * the stream holds already are skipped by their keys). Rejects with StreamError(`STREAM_CLOSED`) when the stream is
   * ended or failed; the writer then knows it.
   */
  within(connection: StepRecordConnection): Promise<void>;
  /** That transaction failed for good: the chunks go back to the writer, ahead of anything newer, and are flushed. */
  abandoned(): void;
  /**
   * That transaction committed: this process's readers of the stream read at once (not after the NOTIFY). A reader
   * whose next chunks these are may yield them without reading them back (`PostgresStreamManager`).
   */
  committed?(): void;
}

/**
 * What a `StreamManager` offers the fused journal when it can append inside a step record's transaction
 * (`StreamManager.stepRecords`; `PostgresStreamManager` has it, the in-memory and Redis managers do not). Proven by
 * `describeStepRecordsContract` (`helix-agents-dbos/testing/contracts`).
 *
 * @example
 * if (streams.stepRecords !== undefined && (await record.joins(streams.stepRecords))) {
 *   const handover = await streams.stepRecords.handOver(writer);
 *   if (handover !== undefined) record.defer(handover);
 * }
 */
export interface StreamManagerStepRecords extends StepRecordParticipant {
  /** The schema of the manager's tables: a state store with the same schema keeps its checkpoints beside the chunks. */
  schema(): string;
  /**
   * Take everything `writer` (one this manager created) has buffered so far, after the batch in flight, for a
   * caller's transaction: the chunks are stored when it commits (once, whatever it retries), nothing when it rolls
   * back. `undefined` when nothing is buffered. Throws StreamError(`STREAM_CLOSED`) when the writer knows its stream
   * ended, InvalidArgumentError (`INVALID_ARGUMENT`) for a writer this manager did not create.
   * `neverRewritten`: the caller's transaction records the step that wrote the chunks (once it commits, that step's
   * body never runs again, so none of them is written again): a manager may then store them more compactly (the
   * Postgres manager keeps a call's `tool_start` in its `tool_end`'s row).
   */
  handOver(writer: StreamWriter, options?: { neverRewritten?: boolean }): Promise<ChunkHandover | undefined>;
  /**
   * What `createWriter` does to the stream (create it active, or leave an existing one as it is) on `connection`,
   * inside the caller's transaction: a stream created there exists once the caller commits, nothing after a rollback.
   * `agentType` is the stream's own agent type (its root agent's).
   */
  openStreamOn(connection: StepRecordConnection, streamId: string, agentType: string): Promise<void>;
  /**
   * `reactivateStream` on `connection`, inside the caller's transaction: the stream reads active once the caller
   * commits (StreamError `STREAM_NOT_FOUND` when it does not exist). On a connection that sends ahead (a pipelined
   * transaction) it may be sent ahead: a missing stream then fails the caller's transaction by error, reported as
   * `STREAM_NOT_FOUND` before any later statement's failure, and nothing commits. Call the returned `onCommitted` once
   * the caller committed (this process's writers may write it again); never after a rollback.
   */
  reactivateStreamOn(connection: StepRecordConnection, streamId: string): Promise<{ onCommitted(): void }>;
  /**
   * `endStream` on `connection`, inside the caller's transaction on the manager's database, after the chunks handed
   * over (the caller hands them over first): the stream reads ended with `output` once the caller commits, and
   * readers are woken then; nothing remains after a rollback. No-op on a stream already ended or failed. Call the
   * returned `onCommitted` once the caller's transaction committed (this process's writers then know the stream
   * ended); never after a rollback.
   */
  endStreamOn(connection: StepRecordConnection, streamId: string, output?: unknown): Promise<{ onCommitted(): void }>;
}

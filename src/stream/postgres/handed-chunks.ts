import type { StreamChunk } from '../../types/stream.js';
import { committedChunks, type CommittedRows } from './committed-rows.js';

/**
 * Rows a step record's transaction appended to a stream, handed to this process's readers of it: pending from the
 * append's answer until that transaction commits (`commit`) or fails (`discard`). While it is pending, its
 * transaction holds the stream's row lock, so nothing else commits to the stream.
 *
 * @example
 * const batch = routes.pend(committed); // when the append answered, inside the transaction
 * batch.commit();                      // once it committed
 */
export class HandedBatch {
  readonly rows: CommittedRows;
  /** Resolves once the batch is committed or discarded. */
  readonly settled: Promise<void>;
  #state: 'pending' | 'committed' | 'discarded' = 'pending';
  #settle: () => void = () => undefined;

  constructor(rows: CommittedRows) {
    this.rows = rows;
    this.settled = new Promise((resolve) => (this.#settle = resolve));
  }

  get state(): 'pending' | 'committed' | 'discarded' {
    return this.#state;
  }

  /** Its transaction committed: readers may take the rows. */
  commit(): void {
    this.#end('committed');
  }

  /** Its transaction failed, or is tried again (which appends again): readers never take these rows. */
  discard(): void {
    this.#end('discarded');
  }

  #end(state: 'committed' | 'discarded'): void {
    if (this.#state !== 'pending') return;
    this.#state = state;
    this.#settle();
  }
}

/** What a reader finds handed to it: chunks to yield, a batch to wait for (the next rows, not yet committed), or nothing. */
export type HandedRead = { chunks: StreamChunk[] } | { pending: HandedBatch } | undefined;

/**
 * One reader's batches handed to it (see {@link HandedChunkRoutes}), kept until a read finds them past its sequence or
 * out of line: a read takes the committed ones that begin just after its last sequence instead of querying. At most
 * `limit` rows are held (the reader's read batch size); past that, a batch is not kept and the reader reads as before.
 *
 * @example
 * const mailbox = new HandedChunkMailbox(500);
 * const handed = mailbox.take(lastSequence); // undefined: read the database
 */
export class HandedChunkMailbox {
  readonly #limit: number;
  #batches: HandedBatch[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Keep `batch` (in sequence order) unless that would hold more than the limit. */
  offer(batch: HandedBatch): void {
    const held = this.#batches.reduce((total, kept) => total + kept.rows.rows.length, 0);
    if (held + batch.rows.rows.length > this.#limit) return;
    const after = this.#batches.findIndex((kept) => kept.rows.first > batch.rows.first);
    this.#batches.splice(after === -1 ? this.#batches.length : after, 0, batch);
  }

  /** Stop holding `batch` (its wait timed out: it may never settle). */
  forget(batch: HandedBatch): void {
    this.#batches = this.#batches.filter((kept) => kept !== batch);
  }

  /**
   * The chunks of the committed batches that begin at `afterSequence + 1` and follow each other, as the database would
   * give them; else the pending batch that begins there (the rows that commit next, if any do); else `undefined`.
   * Committed batches that are not taken are dropped (the read that follows sees them); pending ones are kept.
   */
  take(afterSequence: number): HandedRead {
    const chunks: StreamChunk[] = [];
    const kept: HandedBatch[] = [];
    let expected = afterSequence + 1;
    for (const batch of this.#batches) {
      if (batch.state === 'discarded' || batch.rows.last < expected) continue;
      if (batch.state === 'pending') kept.push(batch);
      else if (batch.rows.first === expected && kept.length === 0) {
        chunks.push(...committedChunks(batch.rows));
        expected = batch.rows.last + 1;
      }
    }
    this.#batches = kept;
    if (chunks.length > 0) return { chunks };
    const next = kept.find((batch) => batch.rows.first === expected);
    return next === undefined ? undefined : { pending: next };
  }
}

/**
 * A stream manager's readers by stream, to hand them rows its writers' step records append (`ChunkHandover`).
 *
 * @example
 * const routes = new HandedChunkRoutes();
 * const unroute = routes.subscribe('s1', mailbox);
 * const batch = routes.pend(committed); // every mailbox of committed.streamId holds it
 */
export class HandedChunkRoutes {
  readonly #mailboxes = new Map<string, Set<HandedChunkMailbox>>();

  /** Hand `streamId`'s batches to `mailbox` until the returned function is called. */
  subscribe(streamId: string, mailbox: HandedChunkMailbox): () => void {
    let mailboxes = this.#mailboxes.get(streamId);
    if (mailboxes === undefined) {
      mailboxes = new Set();
      this.#mailboxes.set(streamId, mailboxes);
    }
    mailboxes.add(mailbox);
    return () => {
      const current = this.#mailboxes.get(streamId);
      current?.delete(mailbox);
      if (current?.size === 0) this.#mailboxes.delete(streamId);
    };
  }

  /** A pending batch of `rows`, offered to every reader of their stream (settle it: `commit` or `discard`). */
  pend(rows: CommittedRows): HandedBatch {
    const batch = new HandedBatch(rows);
    for (const mailbox of this.#mailboxes.get(rows.streamId) ?? []) mailbox.offer(batch);
    return batch;
  }
}

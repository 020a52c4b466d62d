import type { StreamChunk } from '../../types/stream.js';
import { committedChunks, type CommittedRows } from './committed-rows.js';

/**
 * Rows an append to a stream stores, handed to this process's readers of it: pending while the append is in flight
 * (its rows unknown until it is answered, `place`) or its transaction open, until that commits (`commit`) or fails
 * (`discard`). While its append holds the stream's row lock, nothing else commits to the stream.
 *
 * @example
 * const batch = routes.pend('s1');  // before the append
 * batch.place(committed);           // answered
 * batch.commit();                   // committed
 */
export class HandedBatch {
  readonly streamId: string;
  /** Resolves once the batch is committed or discarded. */
  readonly settled: Promise<void>;
  #rows: CommittedRows | undefined;
  #state: 'pending' | 'committed' | 'discarded' = 'pending';
  #settle: () => void = () => undefined;

  constructor(streamId: string, rows?: CommittedRows) {
    this.streamId = streamId;
    this.#rows = rows;
    this.settled = new Promise((resolve) => (this.#settle = resolve));
  }

  /** The rows, once the append answered (and they are known exactly). */
  get rows(): CommittedRows | undefined {
    return this.#rows;
  }

  get state(): 'pending' | 'committed' | 'discarded' {
    return this.#state;
  }

  /** The append answered: these are its rows. */
  place(rows: CommittedRows): void {
    if (this.#state === 'pending') this.#rows = rows;
  }

  /** Its transaction committed: readers may take the rows (discarded when they are not known). */
  commit(): void {
    this.#end(this.#rows === undefined ? 'discarded' : 'committed');
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

/** The most batches a reader holds (a reader that stops reading holds no more; each batch is one append's rows). */
const MAX_HELD_BATCHES = 32;

/**
 * One reader's batches handed to it (see {@link HandedChunkRoutes}), kept until a read finds them past its sequence or
 * out of line: a read takes the committed ones that begin just after its last sequence instead of querying. At most
 * `limit` rows (the reader's read batch size, counted when a batch is offered) and 32 batches are held; past that, a
 * batch is not kept and the reader reads its rows as before.
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

  /** Keep `batch` unless that would hold more rows than the limit, or more than {@link MAX_HELD_BATCHES} batches. */
  offer(batch: HandedBatch): void {
    this.#batches = this.#batches.filter((kept) => kept.state !== 'discarded');
    const held = this.#batches.reduce((total, kept) => total + (kept.rows?.rows.length ?? 0), 0);
    if (this.#batches.length >= MAX_HELD_BATCHES || held + (batch.rows?.rows.length ?? 0) > this.#limit) return;
    this.#batches.push(batch);
  }

  /** Stop holding `batch` (its wait timed out: it may never settle). */
  forget(batch: HandedBatch): void {
    this.#batches = this.#batches.filter((kept) => kept !== batch);
  }

  /**
   * The chunks of the committed batches that begin at `afterSequence + 1` and follow each other, as the database would
   * give them; else a pending batch that may hold the rows after `afterSequence` (its append not answered yet, or its
   * rows begin there); else `undefined`. Committed batches not taken are dropped (the read that follows sees them).
   */
  take(afterSequence: number): HandedRead {
    const live = this.#batches.filter((batch) => batch.state !== 'discarded' && !(batch.rows !== undefined && batch.rows.last <= afterSequence));
    this.#batches = live.filter((batch) => batch.state === 'pending');
    const committed = live.flatMap((batch) => (batch.state === 'committed' && batch.rows !== undefined ? [batch.rows] : []));
    const chunks: StreamChunk[] = [];
    let expected = afterSequence + 1;
    for (const rows of committed.sort((one, other) => one.first - other.first)) {
      if (rows.first !== expected) break;
      chunks.push(...committedChunks(rows));
      expected = rows.last + 1;
    }
    if (chunks.length > 0) return { chunks };
    const next = this.#batches.find((batch) => batch.rows === undefined || batch.rows.first === expected);
    return next === undefined ? undefined : { pending: next };
  }
}

/**
 * A stream manager's readers by stream, to hand them rows its writers append (a step record's `ChunkHandover`, a flush).
 *
 * @example
 * const routes = new HandedChunkRoutes();
 * const unroute = routes.subscribe('s1', mailbox);
 * const batch = routes.pend('s1'); // every mailbox of 's1' holds it
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

  /** A pending batch of `streamId` (of `rows`, when known), offered to every reader of it (settle it: `commit` or `discard`). */
  pend(streamId: string, rows?: CommittedRows): HandedBatch {
    const batch = new HandedBatch(streamId, rows);
    for (const mailbox of this.#mailboxes.get(streamId) ?? []) mailbox.offer(batch);
    return batch;
  }
}

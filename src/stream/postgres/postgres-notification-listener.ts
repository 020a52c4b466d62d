import type pg from 'pg';
import type { Logger } from '../../hooks/types.js';
import { describeError } from '../describe-error.js';
import { StoreError } from '../../errors/index.js';
import { KeyedListeners } from '../keyed-listeners.js';

/**
 * Options of {@link PostgresNotificationListener}.
 *
 * @example
 * const options: PostgresNotificationListenerOptions = { listenStatement: sql.listen, channel: sql.channel, logger: noopLogger };
 */
export interface PostgresNotificationListenerOptions {
  /** The `LISTEN …` statement to run on each (re)connection. */
  listenStatement: string;
  channel: string;
  logger: Logger;
  /** First delay before reconnecting after the connection drops; doubles up to 2 s. Default 100. */
  reconnectDelayMs?: number;
}

const MAX_RECONNECT_DELAY_MS = 2_000;

/**
 * One LISTEN connection per stream manager, multiplexed to every reader: a notification whose payload is a
 * stream's notification key (`md5(streamId)`) wakes that stream's subscribers. The connection is taken from the pool on the first subscribe;
 * when it drops it is reconnected with back-off, and every subscriber is woken on each (re)connection so
 * readers re-query from their last sequence and miss nothing sent while it was down.
 *
 * @example
 * const listener = new PostgresNotificationListener(pool, { listenStatement: 'LISTEN "helix_streams.public"', channel: 'helix_streams.public', logger });
 * const unsubscribe = listener.subscribe('s1', () => signal.notify());
 */
export class PostgresNotificationListener {
  readonly #pool: pg.Pool;
  readonly #options: PostgresNotificationListenerOptions;
  readonly #subscribers = new KeyedListeners();
  #client: pg.PoolClient | undefined;
  #connecting: Promise<void> | undefined;
  #closed = false;
  #wake: (() => void) | undefined;

  constructor(pool: pg.Pool, options: PostgresNotificationListenerOptions) {
    this.#pool = pool;
    this.#options = options;
  }

  /** The backend process id of the LISTEN connection, or `undefined` while disconnected. */
  get processId(): number | undefined {
    const client = this.#client as unknown as { processID?: number } | undefined;
    return client?.processID;
  }

  /** Call `onChange` whenever `streamId` may have changed (connecting on first use). Returns the unsubscribe. */
  subscribe(streamId: string, onChange: () => void): () => void {
    const stop = this.#subscribers.add(streamId, onChange);
    this.#ensureConnected();
    return stop;
  }

  /**
   * Wake `streamId`'s subscribers in this process now, as its NOTIFY will: a write this process saw commit need not wait
   * for the notification's round trip through the server (it still arrives, and wakes them once more).
   */
  announce(streamId: string): void {
    this.#subscribers.call(streamId);
  }

  /** Drop the LISTEN connection (it is destroyed, not returned to the pool) and stop reconnecting. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wake?.();
    await this.#connecting;
    const client = this.#client;
    this.#client = undefined;
    if (client !== undefined) client.release(true);
  }

  #ensureConnected(): void {
    if (this.#closed || this.#client !== undefined || this.#connecting !== undefined) return;
    this.#connecting = this.#connectLoop().finally(() => {
      this.#connecting = undefined;
    });
  }

  async #connectLoop(): Promise<void> {
    let delay = this.#options.reconnectDelayMs ?? 100;
    while (!this.#closed) {
      let client: pg.PoolClient | undefined;
      let connection: { dropped: boolean } | undefined;
      try {
        client = await this.#pool.connect();
        connection = this.#attach(client);
        await client.query(this.#options.listenStatement);
        if (this.#closed) {
          client.release(true);
          return;
        }
        // The backend may have been terminated in the same packet as LISTEN's reply: then the drop was
        // already seen (and ignored, as the client was not current yet). Never adopt a dead connection.
        if (connection.dropped) throw new StoreError('STORE_ERROR', 'The LISTEN connection dropped while connecting; it is reconnected.', { retryable: true });
        this.#client = client;
        this.#subscribers.callAll();
        return;
      } catch (error) {
        this.#options.logger.warn('stream LISTEN connection failed; retrying', { error: describeError(error), delayMs: delay });
        if (client !== undefined) release(client, error);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          this.#wake = () => (clearTimeout(timer), resolve());
        });
        this.#wake = undefined;
        delay = Math.min(MAX_RECONNECT_DELAY_MS, delay * 2);
      }
    }
  }

  #attach(client: pg.PoolClient): { dropped: boolean } {
    const connection = { dropped: false };
    const onDrop = (error?: unknown): void => {
      if (connection.dropped) return;
      connection.dropped = true;
      if (this.#client !== client) return; // still connecting: the connect loop handles it
      this.#client = undefined;
      this.#options.logger.warn('stream LISTEN connection dropped; reconnecting', { error: describeError(error) });
      release(client, error ?? new Error('connection ended'));
      this.#subscribers.callAll();
      this.#ensureConnected();
    };
    client.on('error', onDrop);
    client.on('end', () => onDrop());
    client.on('notification', (message) => {
      if (message.channel !== this.#options.channel || message.payload === undefined) return;
      this.#subscribers.call(message.payload);
    });
    return connection;
  }
}

function release(client: pg.PoolClient, error: unknown): void {
  try {
    client.release(error instanceof Error ? error : true);
  } catch {
    // Already released: nothing to do.
  }
}

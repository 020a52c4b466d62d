import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../../hooks/types.js';
import { describeError } from '../describe-error.js';
import { KeyedListeners } from '../keyed-listeners.js';

/**
 * The message that a stream ended or failed, published on the manager's end channel by the script that ends it: the
 * SHA-1 of the stream id (40 hex characters whatever the id's length).
 *
 * @example
 * redisEndHintKey('s1'); // 'b4c1…' (40 hex characters)
 */
export function redisEndHintKey(streamId: string): string {
  return createHash('sha1').update(streamId).digest('hex');
}

/**
 * The subscribe side of a `RedisStreamManager`'s end hints: one pub/sub connection (a duplicate of the manager's client,
 * opened on the first subscribe, closed with the manager) on the manager's end channel, multiplexed to every
 * listener by {@link redisEndHintKey}. A hint may be lost (a dropped connection): each (re)connection calls every
 * listener once, and its users keep a slower check of their own.
 *
 * @example
 * const hints = new RedisEndHints(client, 'helix:stream:ended', logger);
 * const stop = hints.subscribe(redisEndHintKey('s1'), () => wake());
 */
export class RedisEndHints {
  readonly #listeners = new KeyedListeners();
  #subscriber: Redis | undefined;
  #closed = false;

  constructor(
    private readonly client: Redis,
    private readonly channel: string,
    private readonly logger: Logger,
  ) {}

  /** Call `listener` on each message `key` on the channel (connecting on first use). Returns the unsubscribe. */
  subscribe(key: string, listener: () => void): () => void {
    const stop = this.#listeners.add(key, listener);
    this.#connect();
    return stop;
  }

  /** Close the pub/sub connection and stop listening. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    if (subscriber !== undefined) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  #connect(): void {
    if (this.#closed || this.#subscriber !== undefined) return;
    const subscriber = this.client.duplicate();
    this.#subscriber = subscriber;
    subscriber.on('error', (error: unknown) => this.logger.warn('stream end-hint connection error', { error: describeError(error) }));
    subscriber.on('message', (channel: string, key: string) => {
      if (channel === this.channel) this.#listeners.call(key);
    });
    // A message published before the subscription (or while reconnecting) is missed: once subscribed, and after each
    // reconnection (ioredis subscribes again), each listener hears that something may have ended.
    let subscribed = false;
    subscriber.on('ready', () => subscribed && this.#listeners.callAll());
    subscriber
      .subscribe(this.channel)
      .then(() => {
        subscribed = true;
        this.#listeners.callAll();
      })
      .catch((error: unknown) => this.logger.warn('stream end-hint subscribe failed', { error: describeError(error) }));
  }
}

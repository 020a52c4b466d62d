import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * A Lua script run with EVALSHA, falling back to EVAL (which also caches it) when the server does not
 * know it yet (`NOSCRIPT`, e.g. after a restart or failover).
 *
 * @example
 * const script = new RedisLuaScript("return redis.call('GET', KEYS[1])");
 * const value = await script.run(client, ['key'], []);
 */
export class RedisLuaScript {
  readonly #source: string;
  readonly #sha: string;

  constructor(source: string) {
    this.#source = source;
    this.#sha = createHash('sha1').update(source).digest('hex');
  }

  /** Run the script atomically with `keys` and `args`; resolves to its reply. */
  async run(client: Redis, keys: string[], args: (string | number)[]): Promise<unknown> {
    try {
      return await client.evalsha(this.#sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(this.#source, keys.length, ...keys, ...args);
    }
  }
}

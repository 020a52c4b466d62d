import { afterEach, describe } from 'vitest';
import type { StreamManager } from '../../stream/stream-manager.js';
import { defineStreamEndHintContract } from './stream-manager-contract/end-hints.js';
import { defineStreamIdContract } from './stream-manager-contract/ids.js';
import { defineStreamIdentityContract } from './stream-manager-contract/identity.js';
import { defineStreamLifecycleContract } from './stream-manager-contract/lifecycle.js';
import { defineStreamRetentionContract } from './stream-manager-contract/retention.js';
import { defineStreamReadingContract } from './stream-manager-contract/reading.js';

/**
 * Register the StreamManager contract suite: one `describe` block that every implementation must pass
 * (sequencing, concurrent writers, live and resumed readers, end/fail/reactivate, cleanup, closed-stream
 * writes, 1,000 chunks through one reader, keyed chunks stored once, 1,024-byte stream ids, bad ids refused by every
 * method, and the optional `onStreamEnd` hint exactly when `options.endHints` says the manager offers it). `factory` is
 * called once per test and the manager is closed after it; stream ids are random, so every test (and other test
 * files) may share one database or Redis.
 *
 * @example
 * // test/contract/stream/in-memory-stream-manager.test.ts
 * describeStreamManagerContract('InMemoryStreamManager', () => new InMemoryStreamManager(), { endHints: true });
 */
export function describeStreamManagerContract(
  name: string,
  factory: () => StreamManager | Promise<StreamManager>,
  options: { endHints?: boolean } = {},
): void {
  describe(`StreamManager contract: ${name}`, () => {
    let managers: StreamManager[] = [];
    const create = async (): Promise<StreamManager> => {
      const manager = await factory();
      managers.push(manager);
      return manager;
    };
    afterEach(async () => {
      const open = managers;
      managers = [];
      await Promise.all(open.map((manager) => manager.close()));
    });

    defineStreamReadingContract(create);
    defineStreamLifecycleContract(create);
    defineStreamIdentityContract(create);
    defineStreamRetentionContract(create);
    defineStreamIdContract(create);
    defineStreamEndHintContract(create, options.endHints === true);
  });
}

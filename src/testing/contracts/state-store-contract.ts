import { afterAll, beforeAll, describe } from 'vitest';
import type { SessionStateStore } from '../../store/state-store.js';
import { defineCheckpointHistoryContract } from './state-store-contract/checkpoint-history.js';
import { defineCheckpointContract } from './state-store-contract/checkpoints.js';
import { defineCommitContract } from './state-store-contract/commit.js';
import { createContractContext, type ContractContext } from './state-store-contract/context.js';
import { defineIdContract } from './state-store-contract/ids.js';
import { defineMessageContract } from './state-store-contract/messages.js';
import { defineRunContract } from './state-store-contract/runs.js';
import { defineSessionContract } from './state-store-contract/sessions.js';
import { defineStagingContract } from './state-store-contract/staging.js';
import { defineStateContract } from './state-store-contract/state.js';
import { defineStateHistoryContract } from './state-store-contract/state-history.js';
import { defineSessionListContract } from './state-store-contract/session-list.js';
import { defineSubSessionContract } from './state-store-contract/sub-sessions.js';

/**
 * What a contract factory returns: a ready store (migrated, connected) and how to dispose of it.
 *
 * @example
 * const subject: StateStoreContractSubject = { store, cleanup: () => store.close() };
 */
export interface StateStoreContractSubject {
  store: SessionStateStore;
  cleanup?: () => Promise<void>;
}

/**
 * Creates the store under test; called once per `describeStateStoreContract` block.
 *
 * @example
 * const factory: StateStoreContractFactory = async () => ({ store: new InMemoryStateStore() });
 */
export type StateStoreContractFactory = () => Promise<StateStoreContractSubject>;

/**
 * Register the `SessionStateStore` contract suite (vitest) for one implementation: lifecycle, state writes
 * and CAS races, the atomic step commit, messages, runs, checkpoints (also a long history of a growing state, branches
 * and rewinds), the session state across commits mixed with other writes, rewinds and branches, staging and sub-session refs, and ids (every method refuses a bad one). Every
 * test uses fresh session ids, so one store serves the whole suite. Any store that passes can back the
 * runtime.
 *
 * @example
 * describeStateStoreContract('InMemoryStateStore', async () => ({ store: new InMemoryStateStore() }));
 */
export function describeStateStoreContract(name: string, factory: StateStoreContractFactory): void {
  describe(`SessionStateStore contract: ${name}`, () => {
    let subject: StateStoreContractSubject | undefined;
    beforeAll(async () => {
      subject = await factory();
    });
    afterAll(async () => {
      await subject?.cleanup?.();
    });
    const context: ContractContext = createContractContext(() => {
      if (subject === undefined) throw new Error('the store factory has not run (or failed)');
      return subject.store;
    });
    defineSessionContract(context);
    defineSessionListContract(context);
    defineStateContract(context);
    defineCommitContract(context);
    defineMessageContract(context);
    defineRunContract(context);
    defineCheckpointContract(context);
    defineCheckpointHistoryContract(context);
    defineStateHistoryContract(context);
    defineStagingContract(context);
    defineSubSessionContract(context);
    defineIdContract(context);
  });
}

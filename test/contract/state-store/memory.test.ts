import { InMemoryStateStore } from '../../../src/store/index.js';
import { describeStateStoreContract } from '../../../src/testing/state-store-contract.js';

describeStateStoreContract('InMemoryStateStore', async () => ({ store: new InMemoryStateStore() }));

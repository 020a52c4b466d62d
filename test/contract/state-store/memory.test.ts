import { InMemoryStateStore } from '../../../src/store/index.js';
import { describeStateStoreContract } from '../../../src/testing/contracts/index.js';

describeStateStoreContract('InMemoryStateStore', async () => ({ store: new InMemoryStateStore() }));

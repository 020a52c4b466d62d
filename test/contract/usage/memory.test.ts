import { describeUsageStoreContract } from '../../../src/testing/contracts/index.js';
import { InMemoryUsageStore } from '../../../src/usage/index.js';

describeUsageStoreContract('InMemoryUsageStore', async () => new InMemoryUsageStore());

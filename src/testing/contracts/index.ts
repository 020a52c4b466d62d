// Contract suites (the `helix-agents-dbos/testing/contracts` entry point). They register vitest suites, so
// this entry point imports `vitest`: install it as a dev dependency to use them.
export { describeStateStoreContract, type StateStoreContractFactory, type StateStoreContractSubject } from './state-store-contract.js';
export { describeStreamManagerContract } from './stream-manager-contract.js';
export { describeUsageStoreContract, type UsageStoreContractFactory } from './usage-store-contract.js';
export {
  describeStepRecordsContract,
  stepRecordsContractChecks,
  type StepRecordsContractCheck,
  type StepRecordsContractComponents,
  type StepRecordsContractConnection,
  type StepRecordsContractFactory,
  type StepRecordsContractSubject,
} from './step-records-contract.js';

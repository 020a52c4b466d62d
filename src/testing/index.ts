// Test doubles and contract suites (the `helix-agents-dbos/testing` entry point). The contract suites
// import `vitest`: install it as a dev dependency to use them.
export { MockLLMAdapter, type MockLLMAdapterOptions, type MockLLMCall } from '../llm/mock-llm-adapter.js';
export type {
  MockLLMResponse,
  MockLLMScript,
  MockTextResponse,
  MockToolCallsResponse,
  MockStructuredOutputResponse,
  MockErrorResponse,
} from '../llm/mock/mock-llm-response.js';
export { InMemoryStateStore } from '../store/memory/in-memory-state-store.js';
export { InMemoryStreamManager, type InMemoryStreamManagerOptions } from '../stream/memory/in-memory-stream-manager.js';
export { InMemoryUsageStore } from '../usage/memory/in-memory-usage-store.js';
export { describeStateStoreContract, type StateStoreContractFactory, type StateStoreContractSubject } from './state-store-contract.js';
export { describeStreamManagerContract } from './stream-manager-contract.js';

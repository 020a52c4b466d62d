// Test doubles (the `helix-agents-dbos/testing` entry point). Loads without vitest: the contract suites live
// in `helix-agents-dbos/testing/contracts`.
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

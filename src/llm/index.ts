export type { LLMAdapter } from './adapter.js';
export { VercelAIAdapter, type VercelAIAdapterOptions } from './vercel-ai-adapter.js';
export { MockLLMAdapter, type MockLLMAdapterOptions, type MockLLMCall } from './mock-llm-adapter.js';
export type {
  MockLLMResponse,
  MockLLMResponseTiming,
  MockLLMScript,
  MockTextResponse,
  MockToolCallsResponse,
  MockStructuredOutputResponse,
  MockErrorResponse,
} from './mock/mock-llm-response.js';
export { toModelMessages, type ConvertedPrompt } from './vercel/message-conversion.js';
export { toLLMCallError } from './vercel/error-mapping.js';

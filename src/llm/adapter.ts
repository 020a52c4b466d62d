import type { LLMGenerateInput, LLMStreamCallbacks, StepResult } from '../types/llm.js';

/**
 * Calls a language model for one agent step. The loop executes tools itself: adapters only return the tool
 * calls the model requested. Failures throw `LLMCallError` with `retryable` set.
 *
 * Implementations: `VercelAIAdapter` (any AI SDK model), `MockLLMAdapter` (scripted, from `/testing`).
 *
 * @example
 * const result = await adapter.generateStep({ messages, tools: [], config: {} }, { onTextDelta: (d) => process.stdout.write(d) });
 */
export interface LLMAdapter {
  generateStep(input: LLMGenerateInput, callbacks?: LLMStreamCallbacks): Promise<StepResult>;
}

import type { LLMConfig, LLMGenerateInput, LLMStreamCallbacks, StepResult } from '../types/llm.js';

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
  /**
   * The key a call with `config` is limited under by the executor's `modelLimiter` (`provider:modelId`, e.g.
   * `openai:gpt-4o`). An adapter without it is limited under `'*'` only.
   */
  modelKey?(config: LLMConfig): string;
}

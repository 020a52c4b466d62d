import { streamText } from 'ai';
import type { LanguageModel, SystemModelMessage } from 'ai';
import { InvalidArgumentError, LLMCallError } from '../errors/index.js';
import type { Logger } from '../hooks/types.js';
import { planCacheBreakpoints, toCacheStrategies } from '../orchestration/prompt-cache.js';
import type { LLMConfig, LLMGenerateInput, LLMStreamCallbacks, StepResult } from '../types/llm.js';
import type { LLMAdapter } from './adapter.js';
import { toLLMCallError } from './vercel/error-mapping.js';
import { toModelMessages, type ConvertedPrompt } from './vercel/message-conversion.js';
import { toFinishReason, toTokenUsage } from './vercel/result-mapping.js';
import { StreamCallbackFailure, readStepStream } from './vercel/step-stream-reader.js';
import type { CollectedStep } from './vercel/step-stream-reader.js';
import { toToolSet } from './vercel/tool-conversion.js';
import { guardToolArguments } from './vercel/argument-guard.js';
import { DEFAULT_TOOL_ARGUMENT_LIMITS } from '../orchestration/tool-argument-limits.js';

/**
 * Options of `VercelAIAdapter`: `model` (required), `logger` (default: none), `maxRetries` (default 0).
 *
 * @example
 * const options: VercelAIAdapterOptions = { model: openai('gpt-4o'), logger: console, maxRetries: 0 };
 */
export interface VercelAIAdapterOptions {
  /** The default model, e.g. `openai('gpt-4o')`. An agent's `llmConfig.model` overrides it per call. */
  model: LanguageModel;
  /** Receives one debug line per call and one warn line per failure (ids, counts, status; never content). */
  logger?: Logger;
  /**
   * Retries inside one call by the AI SDK. Default 0: the durable LLM step owns retries, so a retried call is
   * visible (and counted) at the step level.
   */
  maxRetries?: number;
}

/**
 * `LLMAdapter` over the Vercel AI SDK (v6): streams one step with `streamText`, forwarding text, reasoning
 * and tool-call deltas to the callbacks while the model generates, and returns a compact `StepResult`.
 * Tools are passed without `execute`, so the agent loop runs them in its own durable steps. `config.cache`
 * strategies (`anthropicCache()`) become `providerOptions` cache breakpoints on the prompt.
 *
 * @throws LLMCallError (`LLM_CALL_FAILED`) with `retryable` true for HTTP 408/409/429/5xx, dropped connections
 *   and timeouts, false for other 4xx, malformed responses and aborts; `data.statusCode` when known.
 *   Errors thrown by the callbacks are rethrown unchanged.
 * @example
 * import { openai } from '@ai-sdk/openai';
 * const adapter = new VercelAIAdapter({ model: openai('gpt-4o') });
 * const result = await adapter.generateStep({ messages, tools: [], config: {} }, { onTextDelta: (d) => process.stdout.write(d) });
 */
export class VercelAIAdapter implements LLMAdapter {
  private readonly model: LanguageModel;
  private readonly logger: Logger | undefined;
  private readonly maxRetries: number;

  constructor(options: VercelAIAdapterOptions) {
    if (!isLanguageModel(options.model)) {
      throw new InvalidArgumentError('VercelAIAdapter needs `model`: an AI SDK LanguageModel such as openai("gpt-4o").');
    }
    const maxRetries = options.maxRetries ?? 0;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) {
      throw new InvalidArgumentError('VercelAIAdapter `maxRetries` must be an integer >= 0.');
    }
    this.model = options.model;
    this.logger = options.logger;
    this.maxRetries = maxRetries;
  }

  /**
   * Calls the model once (one step) and resolves when its stream ends.
   *
   * @example
   * const { text, toolCalls, usage } = await adapter.generateStep({ messages, tools, config: { temperature: 0 } });
   */
  async generateStep(input: LLMGenerateInput, callbacks?: LLMStreamCallbacks): Promise<StepResult> {
    const rejected = new Map<string, string>();
    const model = guardToolArguments(this.resolveModel(input.config.model), input.toolArgumentLimits ?? DEFAULT_TOOL_ARGUMENT_LIMITS, rejected);
    const startedAt = Date.now();
    let collected: CollectedStep;
    try {
      const breakpoints = planCacheBreakpoints(input.messages, toCacheStrategies(input.config.cache));
      const prompt = toModelMessages(input.messages, breakpoints);
      const result = streamText({
        model,
        ...systemOf(prompt),
        messages: prompt.messages,
        ...(prompt.hasInlineSystemMessages ? { allowSystemInMessages: true } : {}),
        ...(input.tools.length === 0 ? {} : { tools: toToolSet(input.tools) }),
        ...(input.config.temperature === undefined ? {} : { temperature: input.config.temperature }),
        ...(input.config.maxOutputTokens === undefined ? {} : { maxOutputTokens: input.config.maxOutputTokens }),
        maxRetries: this.maxRetries,
        ...(input.abortSignal === undefined ? {} : { abortSignal: input.abortSignal }),
        // Errors arrive as `error` parts and are mapped below; the default handler would print them.
        onError: () => undefined,
      });
      collected = await readStepStream(result.fullStream, callbacks);
    } catch (error) {
      if (error instanceof StreamCallbackFailure) throw error.original;
      throw this.fail(error, input);
    }
    if (collected.error !== undefined) throw this.fail(collected.error, input);
    if (collected.aborted) throw this.fail(new LLMCallError('The LLM call was aborted.', { retryable: false }), input);
    if (collected.finishReason === 'error') {
      const error = new LLMCallError('The LLM provider ended the response with an error; check the provider status.', {
        retryable: false,
      });
      throw this.fail(error, input);
    }

    for (const [toolCallId, error] of rejected) {
      const call = collected.toolCalls.find((candidate) => candidate.id === toolCallId);
      collected.invalidToolCalls = [
        ...collected.invalidToolCalls.filter((invalid) => invalid.toolCallId !== toolCallId),
        { toolCallId, toolName: call?.name ?? 'unknown', error },
      ];
    }
    const stepResult: StepResult = {
      text: collected.text,
      ...(collected.thinking.length > 0 ? { thinking: collected.thinking } : {}),
      toolCalls: collected.toolCalls,
      usage: toTokenUsage(collected.usage),
      finishReason: toFinishReason(collected.finishReason),
      modelId: collected.modelId ?? modelIdOf(model),
      ...(collected.invalidToolCalls.length > 0 ? { invalidToolCalls: collected.invalidToolCalls } : {}),
    };
    this.logger?.debug?.('llm.step.completed', {
      ...logContext(input),
      modelId: stepResult.modelId,
      durationMs: Date.now() - startedAt,
      finishReason: stepResult.finishReason,
      toolCallCount: stepResult.toolCalls.length,
      inputTokens: stepResult.usage.inputTokens,
      outputTokens: stepResult.usage.outputTokens,
    });
    return stepResult;
  }

  /**
   * `provider:modelId` of the call's model (the provider's family: `openai.responses` and `openai.chat` are both
   * `openai`), the key its fleet-wide limits are kept under. A model given by name is its own key.
   *
   * @example
   * adapter.modelKey({}); // 'openai:gpt-4o'
   */
  modelKey(config: LLMConfig): string {
    const model = isLanguageModel(config.model) ? config.model : this.model;
    return typeof model === 'string' ? model : `${model.provider.split('.')[0]}:${model.modelId}`;
  }

  /** The call's model: `config.model` when set, else the constructor's. */
  private resolveModel(override: unknown): LanguageModel {
    if (override === undefined || override === null) return this.model;
    if (isLanguageModel(override)) return override;
    throw new LLMCallError('llmConfig.model is not an AI SDK LanguageModel; pass a model such as openai("gpt-4o").', {
      retryable: false,
    });
  }

  /** Maps a failure to `LLMCallError` and logs it (class, status, retryability; never content). */
  private fail(error: unknown, input: LLMGenerateInput): LLMCallError {
    const mapped = toLLMCallError(error);
    this.logger?.warn('llm.step.failed', {
      ...logContext(input),
      errorName: error instanceof Error ? error.name : typeof error,
      retryable: mapped.retryable,
      ...(mapped.data?.statusCode === undefined ? {} : { statusCode: mapped.data.statusCode }),
    });
    return mapped;
  }
}

/** The `system` argument: the prompt text, or a system message carrying the prompt's cache breakpoint. */
function systemOf(prompt: ConvertedPrompt): { system?: string | SystemModelMessage } {
  if (prompt.system === undefined) return {};
  if (prompt.systemProviderOptions === undefined) return { system: prompt.system };
  return { system: { role: 'system', content: prompt.system, providerOptions: prompt.systemProviderOptions } };
}

/** True for a model id string or an object shaped like a LanguageModelV2/V3. */
function isLanguageModel(value: unknown): value is LanguageModel {
  if (typeof value === 'string') return value.length > 0;
  return typeof value === 'object' && value !== null && typeof (value as { doStream?: unknown }).doStream === 'function';
}

function modelIdOf(model: LanguageModel): string {
  return typeof model === 'string' ? model : model.modelId;
}

function logContext(input: LLMGenerateInput): Record<string, unknown> {
  return {
    ...(input.agentType === undefined ? {} : { agentType: input.agentType }),
    ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
    ...(input.step === undefined ? {} : { step: input.step }),
  };
}

import type { FinishReason as SdkFinishReason, LanguageModelUsage, TextStreamPart, ToolSet } from 'ai';
import type { InvalidToolCall, LLMStreamCallbacks } from '../../types/llm.js';
import type { ToolCall } from '../../types/message.js';

/**
 * Everything one `streamText` step produced, collected from its `fullStream`.
 *
 * @example
 * const collected: CollectedStep = await readStepStream(result.fullStream, callbacks);
 * if (collected.error !== undefined) throw toLLMCallError(collected.error);
 */
export interface CollectedStep {
  text: string;
  thinking: string;
  toolCalls: ToolCall[];
  invalidToolCalls: InvalidToolCall[];
  usage?: LanguageModelUsage;
  finishReason?: SdkFinishReason;
  modelId?: string;
  /** The first `error` part, if any (the reader stops there). */
  error?: unknown;
  /** True when the stream reported an `abort` part. */
  aborted: boolean;
}

/**
 * Wraps an error thrown by one of the caller's stream callbacks, so the adapter rethrows it unchanged
 * instead of reporting it as an LLM failure.
 *
 * @example
 * catch (error) { if (error instanceof StreamCallbackFailure) throw error.original; }
 */
export class StreamCallbackFailure extends Error {
  constructor(readonly original: unknown) {
    super('A stream callback threw.');
    this.name = 'StreamCallbackFailure';
  }
}

/** Model-facing text for a tool call whose arguments were not a JSON object. */
const INVALID_ARGUMENTS_ERROR = 'Tool arguments were not a valid JSON object. Call the tool again with a JSON object.';

/**
 * Reads a `streamText` `fullStream`, forwarding deltas to the callbacks as they arrive (awaiting each, so a
 * slow consumer applies backpressure) and collecting the step's text, reasoning, tool calls, usage and
 * finish reason. Stops at the first `error` part. Callback errors surface as `StreamCallbackFailure`.
 *
 * @example
 * const collected = await readStepStream(streamText({ model, messages }).fullStream, { onTextDelta: (d) => out.write(d) });
 */
export async function readStepStream(
  fullStream: AsyncIterable<TextStreamPart<ToolSet>>,
  callbacks: LLMStreamCallbacks | undefined,
): Promise<CollectedStep> {
  const collected: CollectedStep = { text: '', thinking: '', toolCalls: [], invalidToolCalls: [], aborted: false };
  const toolNames = new Map<string, string>();

  for await (const part of fullStream) {
    switch (part.type) {
      case 'text-delta':
        if (part.text.length === 0) break;
        collected.text += part.text;
        await notify(() => callbacks?.onTextDelta?.(part.text));
        break;
      case 'reasoning-delta':
        if (part.text.length === 0) break;
        collected.thinking += part.text;
        await notify(() => callbacks?.onThinkingDelta?.(part.text));
        break;
      case 'tool-input-start':
        toolNames.set(part.id, part.toolName);
        break;
      case 'tool-input-delta': {
        if (part.delta.length === 0) break;
        const delta = { toolCallId: part.id, toolName: toolNames.get(part.id) ?? '', argumentsDelta: part.delta };
        await notify(() => callbacks?.onToolCallDelta?.(delta));
        break;
      }
      case 'tool-call': {
        if (part.providerExecuted === true) break;
        const toolCall: ToolCall = { id: part.toolCallId, name: part.toolName, arguments: {} };
        if (isJsonObject(part.input)) {
          toolCall.arguments = part.input;
        } else if (!isBlankText(part.input)) {
          collected.invalidToolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, error: INVALID_ARGUMENTS_ERROR });
        }
        collected.toolCalls.push(toolCall);
        await notify(() => callbacks?.onToolCall?.(toolCall));
        break;
      }
      case 'finish-step':
        collected.modelId = part.response.modelId;
        break;
      case 'finish':
        collected.finishReason = part.finishReason;
        collected.usage = part.totalUsage;
        break;
      case 'abort':
        collected.aborted = true;
        break;
      case 'error':
        collected.error = part.error;
        return collected;
      default:
        break;
    }
  }
  return collected;
}

/** Runs one callback, wrapping what it throws so the caller can tell it apart from an SDK failure. */
async function notify(invoke: () => void | Promise<void> | undefined): Promise<void> {
  try {
    await invoke();
  } catch (error) {
    throw new StreamCallbackFailure(error);
  }
}

/** An empty argument string means "no arguments" (`{}`), as the SDK itself treats it for known tools. */
function isBlankText(value: unknown): boolean {
  return typeof value === 'string' && value.trim().length === 0;
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

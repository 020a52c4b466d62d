import type {
  AssistantContent,
  JSONValue,
  ModelMessage,
  ToolModelMessage,
  ToolResultPart,
} from 'ai';
import type { CacheBreakpoint } from '../../orchestration/prompt-cache.js';
import type { AssistantMessage, Message, ToolResultMessage } from '../../types/message.js';

type ProviderOptions = NonNullable<ModelMessage['providerOptions']>;

/**
 * Our conversation converted for `streamText`: the leading system prompt plus the AI SDK messages.
 *
 * @example
 * const { system, messages, hasInlineSystemMessages }: ConvertedPrompt = toModelMessages(history);
 * streamText({ model, system, messages, allowSystemInMessages: hasInlineSystemMessages });
 */
export interface ConvertedPrompt {
  /** The leading system message(s), joined by a blank line; undefined when the conversation has none. */
  system?: string;
  /** Every other message, in order. System messages after the first non-system message stay in place. */
  messages: ModelMessage[];
  /** True when `messages` contains a system message (pass `allowSystemInMessages: true`). */
  hasInlineSystemMessages: boolean;
  /** Provider options of the leading system prompt (a cache breakpoint), when a breakpoint marks it. */
  systemProviderOptions?: ProviderOptions;
}

/**
 * Converts our `Message[]` into the AI SDK v6 prompt shape.
 *
 * Leading system messages become `system`; user messages stay strings; an assistant message becomes a text
 * part plus one `tool-call` part per tool call (its `thinking` is not sent back: providers reject reasoning
 * they did not sign); consecutive tool results merge into one `tool` message whose parts carry
 * `{ type: 'text' }` for string results, `{ type: 'json' }` for anything else and `{ type: 'error-text' }`
 * when `isError`. Empty assistant messages (no text, no tool calls) are dropped. A cache breakpoint's provider
 * options go on the system prompt, on the tool-result part of a marked tool message, or on the marked message.
 *
 * @example
 * const { system, messages } = toModelMessages([
 *   { role: 'system', content: 'Be brief.' },
 *   { role: 'user', content: 'Hi' },
 * ]);
 * // system === 'Be brief.', messages === [{ role: 'user', content: 'Hi' }]
 */
export function toModelMessages(conversation: readonly Message[], breakpoints: readonly CacheBreakpoint[] = []): ConvertedPrompt {
  const systemParts: string[] = [];
  const messages: ModelMessage[] = [];
  let hasInlineSystemMessages = false;
  let systemProviderOptions: ProviderOptions | undefined;
  let pendingToolMessage: ToolModelMessage | undefined;
  const optionsAt = providerOptionsByIndex(breakpoints);

  conversation.forEach((message, index) => {
    const providerOptions = optionsAt.get(index);
    const marked = providerOptions === undefined ? {} : { providerOptions };
    if (message.role !== 'tool') pendingToolMessage = undefined;
    switch (message.role) {
      case 'system':
        if (messages.length === 0) {
          systemParts.push(message.content);
          if (providerOptions !== undefined) systemProviderOptions = { ...systemProviderOptions, ...providerOptions };
        } else {
          messages.push({ role: 'system', content: message.content, ...marked });
          hasInlineSystemMessages = true;
        }
        break;
      case 'user':
        messages.push({ role: 'user', content: message.content, ...marked });
        break;
      case 'assistant': {
        const content = toAssistantContent(message);
        if (content.length > 0) messages.push({ role: 'assistant', content, ...marked });
        break;
      }
      case 'tool': {
        const part: ToolResultPart = { ...toToolResultPart(message), ...marked };
        if (pendingToolMessage === undefined) {
          pendingToolMessage = { role: 'tool', content: [part] };
          messages.push(pendingToolMessage);
        } else {
          pendingToolMessage.content.push(part);
        }
        break;
      }
    }
  });

  return {
    ...(systemParts.length > 0 ? { system: systemParts.join('\n\n') } : {}),
    messages,
    hasInlineSystemMessages,
    ...(systemParts.length > 0 && systemProviderOptions !== undefined ? { systemProviderOptions } : {}),
  };
}

function providerOptionsByIndex(breakpoints: readonly CacheBreakpoint[]): Map<number, ProviderOptions> {
  const byIndex = new Map<number, ProviderOptions>();
  for (const { messageIndex, providerOptions } of breakpoints) {
    byIndex.set(messageIndex, { ...byIndex.get(messageIndex), ...(providerOptions as ProviderOptions) });
  }
  return byIndex;
}

/** The parts of one assistant turn: its text, then its tool calls in order. */
function toAssistantContent(message: AssistantMessage): Exclude<AssistantContent, string> {
  const parts: Exclude<AssistantContent, string> = [];
  if (message.content.length > 0) parts.push({ type: 'text', text: message.content });
  for (const toolCall of message.toolCalls ?? []) {
    parts.push({ type: 'tool-call', toolCallId: toolCall.id, toolName: toolCall.name, input: toolCall.arguments });
  }
  return parts;
}

/** One tool result as an AI SDK `tool-result` part. */
function toToolResultPart(message: ToolResultMessage): ToolResultPart {
  const base = { type: 'tool-result' as const, toolCallId: message.toolCallId, toolName: message.toolName };
  if (message.isError === true) {
    return { ...base, output: { type: 'error-text', value: toText(message.content) } };
  }
  if (typeof message.content === 'string') {
    return { ...base, output: { type: 'text', value: message.content } };
  }
  return { ...base, output: { type: 'json', value: toJsonValue(message.content) } };
}

/** Error content as text: strings unchanged, anything else as JSON. */
function toText(content: unknown): string {
  if (typeof content === 'string') return content;
  const text: string | undefined = JSON.stringify(content);
  return text ?? 'Tool call failed.';
}

/**
 * A JSON value for the SDK's prompt validation: `undefined` becomes `null`, and values that are not plain
 * JSON (dates, class instances, `undefined` inside objects) go through a JSON round trip.
 */
function toJsonValue(content: unknown): JSONValue {
  if (content === undefined) return null;
  if (content === null || typeof content === 'number' || typeof content === 'boolean') return content;
  const text: string | undefined = JSON.stringify(content);
  return text === undefined ? null : (JSON.parse(text) as JSONValue);
}

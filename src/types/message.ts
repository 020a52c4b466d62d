/**
 * Conversation messages, stored once per session in order.
 *
 * Messages are plain JSON. Every stored message has a stable `id`; ids written by the runtime are derived
 * from `(runId, step, index)` so that a retried step appends nothing twice (stores ignore an append whose id
 * already exists in the session).
 */

/**
 * A tool call requested by the model. `arguments` is the parsed JSON object the model produced.
 *
 * @example
 * const call: ToolCall = { id: 'call-1', name: 'get_weather', arguments: { city: 'Oslo' } };
 */
export interface ToolCall {
  /** Provider-assigned id, unique within the session. */
  id: string;
  /** Tool name as the model called it. */
  name: string;
  /** Parsed arguments (the model's JSON). Not yet validated against the tool's schema. */
  arguments: Record<string, unknown>;
}

/** Fields every message carries. */
export interface MessageBase {
  /** Stable id. Runtime-written ids look like `${runId}:${step}:${index}`. */
  id?: string;
  /** Epoch milliseconds; set by the writer (from a step, never the workflow body). */
  createdAt?: number;
  /** Free-form, JSON-serializable annotations. */
  metadata?: Record<string, unknown>;
}

/**
 * The system prompt. Never stored: built for each LLM call from the agent's `systemPrompt`.
 *
 * @example
 * const system: SystemMessage = { role: 'system', content: 'You plan trips.' };
 */
export interface SystemMessage extends MessageBase {
  role: 'system';
  content: string;
}

/**
 * A user turn.
 *
 * @example
 * const user: UserMessage = { role: 'user', content: 'Lisbon or Porto?' };
 */
export interface UserMessage extends MessageBase {
  role: 'user';
  content: string;
}

/**
 * A model turn: text, optional reasoning, and the tool calls it requested.
 *
 * @example
 * const reply: AssistantMessage = { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'get_weather', arguments: { city: 'Lisbon' } }] };
 */
export interface AssistantMessage extends MessageBase {
  role: 'assistant';
  content: string;
  thinking?: string;
  toolCalls?: ToolCall[];
}

/**
 * The result of one tool call, paired with the assistant message's `toolCalls[].id`.
 *
 * @example
 * const result: ToolResultMessage = { role: 'tool', toolCallId: 'c1', toolName: 'get_weather', content: { celsius: 21 } };
 */
export interface ToolResultMessage extends MessageBase {
  role: 'tool';
  toolCallId: string;
  toolName: string;
  /** The tool's JSON-serializable result, or the error text when `isError`. */
  content: unknown;
  isError?: boolean;
}

/**
 * Any message of a conversation.
 *
 * @example
 * const history: Message[] = [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello!' }];
 */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage;

/**
 * A message as read back from a store: it always has an id and a per-session sequence (1-based).
 *
 * @example
 * const { messages }: { messages: StoredMessage[] } = await stateStore.getMessages('s1');
 */
export type StoredMessage = Message & { id: string; sequence: number };

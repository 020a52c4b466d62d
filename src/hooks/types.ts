import type { JsonPatchOperation } from '../types/json-patch.js';
import type { Message } from '../types/message.js';
import type { CompletionReason } from '../types/session.js';
import type { StepResult } from '../types/llm.js';

/**
 * Structured logger accepted by every component (pino, winston and `console` fit). Fields are ids, counts
 * and durations — never prompts, tool payloads or secrets — with one exception: at `debug` only, an error that was
 * sanitized where it crossed a trust boundary is logged with its original `cause` (a provider's or tool's own text),
 * so keep debug logs where secrets may be.
 *
 * @example
 * const logger: Logger = { info: console.info, warn: console.warn, error: console.error };
 */
export interface Logger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Identity of the run a hook fires in.
 *
 * @example
 * const base: HookEventBase = { sessionId: 's1', runId: 'r1', agentType: 'assistant' };
 */
export interface HookEventBase {
  sessionId: string;
  runId: string;
  agentType: string;
}

/**
 * Fired when a run starts.
 *
 * @example
 * const onAgentStart = ({ sessionId, stepCount }: AgentStartEvent) => console.log(sessionId, stepCount);
 */
export interface AgentStartEvent extends HookEventBase { stepCount: number }
/**
 * Fired when a run completes, with its output and why it stopped.
 *
 * @example
 * const onAgentComplete = ({ completionReason }: AgentCompleteEvent) => metrics.increment(completionReason);
 */
export interface AgentCompleteEvent extends HookEventBase { output: unknown; completionReason: CompletionReason; stepCount: number }
/**
 * Fired when a run fails.
 *
 * @example
 * const onAgentFail = ({ error, sessionId }: AgentFailEvent) => alert(sessionId, error);
 */
export interface AgentFailEvent extends HookEventBase { error: string; completionReason: CompletionReason; stepCount: number }
/**
 * Fired when a run waits for client tool results / approvals or for children.
 *
 * @example
 * const onAgentSuspended = ({ reason, toolCallIds }: AgentSuspendedEvent) => notify(reason, toolCallIds);
 */
export interface AgentSuspendedEvent extends HookEventBase {
  reason: 'client_tool' | 'awaiting_children';
  toolCallIds: string[];
}
/**
 * Fired when a suspended run continues.
 *
 * @example
 * const onAgentResumed = ({ previousRunId }: AgentResumedEvent) => linkSpans(previousRunId);
 */
export interface AgentResumedEvent extends HookEventBase {
  /** Always the suspended run's id (equal to runId when a warm workflow woke in place). */
  previousRunId: string;
  resumedFromCheckpointId?: string;
}
/**
 * Fired before each LLM call.
 *
 * @example
 * const beforeLLMCall = ({ step, messageCount }: BeforeLLMCallEvent) => console.log(step, messageCount);
 */
export interface BeforeLLMCallEvent extends HookEventBase { step: number; messageCount: number }
/**
 * Fired after each LLM call with its compact result.
 *
 * @example
 * const afterLLMCall = ({ result }: AfterLLMCallEvent) => usage.add(result.usage.totalTokens);
 */
export interface AfterLLMCallEvent extends HookEventBase { step: number; result: StepResult }
/**
 * Fired before a tool executes.
 *
 * @example
 * const beforeTool = ({ toolName }: BeforeToolEvent) => console.log('running', toolName);
 */
export interface BeforeToolEvent extends HookEventBase { toolCallId: string; toolName: string; input: Record<string, unknown> }
/**
 * Fired after a tool ran (last in the tool-path order).
 *
 * @example
 * const afterTool = ({ toolName, durationMs }: AfterToolEvent) => metrics.observe(toolName, durationMs);
 */
export interface AfterToolEvent extends HookEventBase {
  toolCallId: string;
  toolName: string;
  input: Record<string, unknown>;
  result?: unknown;
  error?: string;
  durationMs?: number;
}
/**
 * Fired when a tool changed the custom state, with the RFC 6902 patches.
 *
 * @example
 * const onStateChange = ({ patches }: StateChangeEvent) => console.log(patches.length);
 */
export interface StateChangeEvent extends HookEventBase { toolCallId?: string; patches: JsonPatchOperation[] }
/**
 * Fired for each message appended to the conversation.
 *
 * @example
 * const onMessage = ({ message }: MessageEvent) => console.log(message.role);
 */
export interface MessageEvent extends HookEventBase { message: Message }

/**
 * Lifecycle hooks. Tool-path order is canonical: beforeTool → execute → onStateChange → onMessage → afterTool.
 * A throwing hook is logged and never fails the run.
 *
 * @example
 * const hooks: AgentHooks = { afterTool: ({ toolName, durationMs }) => metrics.observe(toolName, durationMs) };
 */
export interface AgentHooks {
  onAgentStart?(event: AgentStartEvent): void | Promise<void>;
  onAgentComplete?(event: AgentCompleteEvent): void | Promise<void>;
  onAgentFail?(event: AgentFailEvent): void | Promise<void>;
  onAgentSuspended?(event: AgentSuspendedEvent): void | Promise<void>;
  onAgentResumed?(event: AgentResumedEvent): void | Promise<void>;
  beforeLLMCall?(event: BeforeLLMCallEvent): void | Promise<void>;
  afterLLMCall?(event: AfterLLMCallEvent): void | Promise<void>;
  beforeTool?(event: BeforeToolEvent): void | Promise<void>;
  afterTool?(event: AfterToolEvent): void | Promise<void>;
  onStateChange?(event: StateChangeEvent): void | Promise<void>;
  onMessage?(event: MessageEvent): void | Promise<void>;
}

/**
 * The names of every hook.
 *
 * @example
 * const name: HookName = 'afterTool';
 */
export type HookName = keyof AgentHooks;

import type { JsonPatchOperation } from '../types/json-patch.js';
import type { Message } from '../types/message.js';
import type { CompletionReason } from '../types/session.js';
import type { StepResult } from '../types/llm.js';

/**
 * Structured logger accepted by every component (pino, winston and `console` fit). Fields are ids, counts
 * and durations — never prompts, tool payloads or secrets.
 */
export interface Logger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Identity of the run a hook fires in. */
export interface HookEventBase {
  sessionId: string;
  runId: string;
  agentType: string;
}

export interface AgentStartEvent extends HookEventBase { stepCount: number }
export interface AgentCompleteEvent extends HookEventBase { output: unknown; completionReason: CompletionReason; stepCount: number }
export interface AgentFailEvent extends HookEventBase { error: string; completionReason: CompletionReason; stepCount: number }
export interface AgentSuspendedEvent extends HookEventBase {
  reason: 'client_tool' | 'awaiting_children';
  toolCallIds: string[];
}
export interface AgentResumedEvent extends HookEventBase {
  /** Always the suspended run's id (equal to runId when a warm workflow woke in place). */
  previousRunId: string;
  resumedFromCheckpointId?: string;
}
export interface BeforeLLMCallEvent extends HookEventBase { step: number; messageCount: number }
export interface AfterLLMCallEvent extends HookEventBase { step: number; result: StepResult }
export interface BeforeToolEvent extends HookEventBase { toolCallId: string; toolName: string; input: Record<string, unknown> }
export interface AfterToolEvent extends HookEventBase {
  toolCallId: string;
  toolName: string;
  input: Record<string, unknown>;
  result?: unknown;
  error?: string;
  durationMs?: number;
}
export interface StateChangeEvent extends HookEventBase { toolCallId?: string; patches: JsonPatchOperation[] }
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

/** The names of every hook. */
export type HookName = keyof AgentHooks;

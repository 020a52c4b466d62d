import type { CompanionAction } from '../agent/index.js';
import type { AssistantMessage, ToolResultMessage, UserMessage } from '../types/message.js';

/**
 * Identity of the step being planned. JSON only, so the workflow body can pass it as is.
 *
 * @example
 * const context: StepPlanningContext = { sessionId: 's1', runId: 'run-1', step: 1 };
 */
export interface StepPlanningContext {
  sessionId: string;
  runId: string;
  /** The LLM step number (1-based within the run). */
  step: number;
}

/**
 * A tool call whose arguments passed its schema.
 *
 * @example
 * const call: PlannedToolCall = { toolCallId: 'c1', toolName: 'search', input: { q: 'x' }, index: 0, resultMessageId: 'run-1:1:1' };
 */
export interface PlannedToolCall {
  toolCallId: string;
  toolName: string;
  /**
   * Arguments as parsed by the tool's zod schema (defaults applied). The plan is checkpointed, so tool
   * schemas should map JSON to JSON (no transforms into Dates, Maps or class instances).
   */
  input: Record<string, unknown>;
  /** Position in the assistant message's `toolCalls`. */
  index: number;
  /** Id for this call's result message: `messageId(runId, step, index + 1)`. */
  resultMessageId: string;
}

/**
 * A server tool call gated by `requireApproval`: `always` for `true`, `predicate` when the function form
 * must be evaluated (inside a durable step) to decide.
 *
 * @example
 * if (call.approval === 'predicate') { /* evaluate in ApprovalGateStep *\/ }
 */
export interface PlannedApprovalCall extends PlannedToolCall {
  approval: 'always' | 'predicate';
}

/**
 * A call of a `createSubAgentTool` tool.
 *
 * @example
 * const child = plan.subAgentCalls[0]?.childSessionId; // 's1-sub-c1'
 */
export interface PlannedSubAgentCall extends PlannedToolCall {
  /** The child's agent type. */
  agentType: string;
  /** `${sessionId}-sub-${toolCallId}`. */
  childSessionId: string;
  /** The child's input message: the validated input as JSON text. */
  childMessage: string;
}

/**
 * A call of a `createRemoteSubAgentTool` tool.
 *
 * @example
 * const remote = plan.remoteCalls[0]?.remoteSessionId; // 's1-remote-c1'
 */
export interface PlannedRemoteCall extends PlannedToolCall {
  /** The remote agent type. */
  agentType: string;
  /** `${sessionId}-remote-${toolCallId}`. */
  remoteSessionId: string;
  /** The remote agent's input message: the validated input as JSON text. */
  childMessage: string;
}

/**
 * A call of a `companion__*` tool.
 *
 * @example
 * if (call.action === 'spawnAgent') { /* start or continue the child *\/ }
 */
export interface PlannedCompanionCall extends PlannedToolCall {
  action: CompanionAction;
}

/**
 * A valid `__finish__` call: the validated output and the synthetic result that keeps history valid.
 *
 * @example
 * if (plan.finishCall) await append([plan.assistantMessage, plan.finishCall.resultMessage]);
 */
export interface PlannedFinishCall {
  toolCallId: string;
  index: number;
  /** The output, parsed by the agent's outputSchema. */
  output: unknown;
  resultMessage: ToolResultMessage;
}

/**
 * Why a call was answered with an error instead of running.
 *
 * @example
 * const reason: ToolErrorReason = 'unknown_tool';
 */
export type ToolErrorReason = 'unknown_tool' | 'invalid_arguments' | 'invalid_output' | 'duplicate_finish';

/**
 * A call answered with a tool_error result fed back to the model (never a crash).
 *
 * @example
 * for (const failure of plan.toolErrors) await writer.write({ type: 'tool_end', toolCallId: failure.toolCallId, toolName: failure.toolName, error: failure.error, … });
 */
export interface PlannedToolError {
  toolCallId: string;
  toolName: string;
  index: number;
  reason: ToolErrorReason;
  /** Payload-free explanation for the model. */
  error: string;
  /**
   * For `invalid_output`: what failed, without values, e.g. `Output failed validation at $.answer (invalid_type)`;
   * the run's error says it when its steps run out.
   */
  outputFailure?: string;
  resultMessage: ToolResultMessage;
}

/**
 * What to do with one LLM step. Plain JSON: safe to log, checkpoint or pass to a step.
 *
 * Execution order: `serverToolCalls`, approved `approvalCalls` and `subAgentCalls` (phase 1, parallel),
 * then `finishWithCalls` (phase 2, sequential); `clientToolCalls` wait for submissions; `companionCalls`
 * have their own phase.
 *
 * @example
 * const plan = planStepProcessing(stepResult, agent, { sessionId, runId, step });
 * await append([plan.assistantMessage, ...plan.toolErrors.map((failure) => failure.resultMessage)]);
 */
export interface StepProcessingPlan {
  step: number;
  assistantMessage: AssistantMessage;
  finishCall?: PlannedFinishCall;
  finishWithCalls: PlannedToolCall[];
  serverToolCalls: PlannedToolCall[];
  approvalCalls: PlannedApprovalCall[];
  clientToolCalls: PlannedToolCall[];
  subAgentCalls: PlannedSubAgentCall[];
  /** Remote sub-agent calls (phase 1, after the local children). */
  remoteCalls: PlannedRemoteCall[];
  companionCalls: PlannedCompanionCall[];
  toolErrors: PlannedToolError[];
  /** The model called no tools. */
  isTextResponse: boolean;
  /**
   * Set when the model answered in text but the agent has an `outputSchema`: a user message asking it to
   * call `__finish__` (id `messageId(runId, step, 1)`), to append before the next step.
   */
  finishReminder?: UserMessage;
}

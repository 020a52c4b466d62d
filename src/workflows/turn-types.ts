import type { AnyAgentConfig } from '../agent/index.js';
import type { StopDecision } from '../orchestration/index.js';
import type { AgentWorkflowInput, RunScope } from '../orchestration/workflow-input.js';
import type { CompletionReason } from '../types/session.js';

export type { AgentWorkflowInput } from '../orchestration/workflow-input.js';

/** How a turn ended: finished (the finish step records it) or parked waiting for humans (already recorded). */
export type TurnOutcome =
  | {
      kind: 'finished';
      status: 'completed' | 'failed' | 'interrupted';
      completionReason: CompletionReason;
      stepCount: number;
      output?: unknown;
      error?: string;
    }
  | { kind: 'parked'; stepCount: number; toolCallIds: string[]; stepId: string; reason: 'client_tool' | 'awaiting_children' };

/** What the parts of a turn share: the agent, the run's identity and input, and progress for error reporting. */
export interface TurnContext {
  agent: AnyAgentConfig;
  scope: RunScope;
  input: AgentWorkflowInput;
  /** The step in progress (for the failure outcome when a step throws). */
  progress: { step: number };
}

/**
 * A finished outcome.
 *
 * @example
 * return finished('interrupted', 'interrupted', step - 1, { error: reason });
 */
export function finished(
  status: 'completed' | 'failed' | 'interrupted',
  completionReason: CompletionReason,
  stepCount: number,
  extra: { output?: unknown; error?: string } = {},
): TurnOutcome {
  return {
    kind: 'finished',
    status,
    completionReason,
    stepCount,
    ...(extra.output === undefined ? {} : { output: extra.output }),
    ...(extra.error === undefined ? {} : { error: extra.error }),
  };
}

/**
 * The outcome of a stop decision, or `undefined` when the run goes on.
 *
 * @example
 * const outcome = outcomeOfStop(shouldStopExecution(check), step);
 */
export function outcomeOfStop(decision: StopDecision, step: number): TurnOutcome | undefined {
  if (!decision.stop) return undefined;
  return finished(decision.status, decision.reason, step, {
    ...(decision.output === undefined ? {} : { output: decision.output }),
    ...(decision.error === undefined ? {} : { error: decision.error }),
  });
}

import type { AnyAgentConfig } from '../agent/index.js';
import { shouldStopExecution } from '../orchestration/index.js';
import type { ToolOutcome } from '../orchestration/tool-outcome.js';
import type { PendingStepCommit } from '../steps/commit.step.js';
import type { StepDecisionResult } from '../orchestration/step-decision-result.js';
import type { SuspendedCall } from '../types/result.js';
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
  | { kind: 'parked'; stepCount: number; toolCallIds: string[]; calls: SuspendedCall[]; stepId: string; reason: 'client_tool' | 'awaiting_children' };

/** What the parts of a turn share: the agent, the run's identity and input, and progress for error reporting. */
export interface TurnContext {
  agent: AnyAgentConfig;
  scope: RunScope;
  input: AgentWorkflowInput;
  /**
   * The step in progress (for the failure outcome when a step throws), and the last step's commit while no later
   * step has done it: the next `CallLLMStep` commits it first, or `FinishRunStep` when the run stops. `outputFailure`:
   * the turn's last invalid `__finish__` output, for the error when the steps run out.
   */
  progress: { step: number; commit?: PendingStepCommit; outputFailure?: string };
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

/** What the stop check after a committed step reads. */
export interface StepStopInput {
  /** The step's LLM result; absent when settling a step parked by an earlier run. */
  stepResult?: StepDecisionResult;
  /** Custom state after the commit. */
  customState: Record<string, unknown> | undefined;
  /** The step's valid `__finish__` call, if any. */
  finishCall?: { output: unknown };
  /** Phase-2 (finishWith) outcomes: the first success finishes the run. */
  phaseTwo: readonly ToolOutcome[];
  /** The turn's last invalid `__finish__` output (no values), said in the `max_steps` error. */
  outputFailure?: string;
}

/**
 * The one stop path after a committed step: `shouldStopExecution` on the step's result, state, `__finish__` and
 * first successful finishWith, as a finished outcome — or `undefined` when the run goes on.
 *
 * @example
 * const stop = stopAfterStep(agent, step, { stepResult, customState, phaseTwo });
 */
export function stopAfterStep(agent: AnyAgentConfig, step: number, input: StepStopInput): TurnOutcome | undefined {
  const finishWith = input.phaseTwo.find((outcome) => outcome.success);
  const decision = shouldStopExecution({
    agent,
    ...(input.stepResult === undefined ? {} : { stepResult: input.stepResult }),
    stepCount: step,
    customState: input.customState ?? {},
    ...(input.finishCall === undefined ? {} : { finishOutput: { output: input.finishCall.output } }),
    ...(finishWith === undefined ? {} : { finishWithOutput: { output: finishWith.result } }),
    ...(input.outputFailure === undefined ? {} : { outputFailure: input.outputFailure }),
  });
  if (!decision.stop) return undefined;
  return finished(decision.status, decision.reason, step, {
    ...(decision.output === undefined ? {} : { output: decision.output }),
    ...(decision.error === undefined ? {} : { error: decision.error }),
  });
}

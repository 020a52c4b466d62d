import type { AnyAgentConfig } from '../agent/index.js';
import { fullStepResult, type StepDecisionResult } from './step-decision-result.js';
import type { CompletionReason } from '../types/session.js';

/**
 * What the stop check needs after a step's tools ran. JSON except `agent`.
 *
 * @example
 * const input: StopCheckInput = { agent, stepResult, stepCount: 3, customState, finishOutput: plan.finishCall && { output: plan.finishCall.output } };
 */
export interface StopCheckInput<TState = Record<string, unknown>> {
  agent: Pick<AnyAgentConfig, 'maxSteps' | 'outputSchema' | 'stopWhen'>;
  /**
   * The step's LLM result. Absent when a resumed run settles a step parked by an earlier run: then only a
   * finish (`__finish__` or finishWith) can end the run, and the loop goes on to the next LLM call.
   */
  stepResult?: StepDecisionResult;
  /** Steps completed in this run, including this one (the per-turn `maxSteps` budget). */
  stepCount: number;
  /** Custom state after the step. */
  customState: TState;
  /** Output of this step's valid `__finish__` call (`plan.finishCall.output`). */
  finishOutput?: { output: unknown };
  /** Result of the first finishWith tool that succeeded this step. */
  finishWithOutput?: { output: unknown };
  /**
   * The turn's last invalid `__finish__` output (`PlannedToolError.outputFailure`, no values): the `max_steps`
   * error starts with it, e.g. `Output failed validation at $.answer (invalid_type); max steps exceeded (3)`.
   */
  outputFailure?: string;
}

/**
 * Whether the run ends after this step, and how.
 *
 * @example
 * const decision: StopDecision = { stop: true, reason: 'max_steps', status: 'failed', error: 'Max steps exceeded (10)' };
 */
export type StopDecision =
  | { stop: false }
  | { stop: true; reason: CompletionReason; status: 'completed' | 'failed'; output?: unknown; error?: string };

/**
 * Decide whether the run stops after a step. In order: a valid `__finish__` or successful finishWith tool
 * (`finish_tool`, output = that output); a text answer without tool calls when there is no outputSchema
 * (`text_response`, output = the text); `stopWhen` (`stop_when`, output = the text when there is no
 * outputSchema); `maxSteps` reached (`max_steps`, failed). Without a `stepResult` (a settled parked step of an
 * earlier run) only the finish rules apply. Pure; a throwing `stopWhen` propagates.
 *
 * @example
 * const decision = shouldStopExecution({ agent, stepResult, stepCount, customState, finishOutput });
 * if (decision.stop) await finalize(decision.status, decision.reason, decision.output);
 */
export function shouldStopExecution<TState>(input: StopCheckInput<TState>): StopDecision {
  const { agent, stepResult, stepCount } = input;
  if (input.finishOutput !== undefined) {
    return { stop: true, reason: 'finish_tool', status: 'completed', output: input.finishOutput.output };
  }
  if (input.finishWithOutput !== undefined) {
    return { stop: true, reason: 'finish_tool', status: 'completed', output: input.finishWithOutput.output };
  }
  if (stepResult === undefined) return { stop: false };
  const hasOutputSchema = agent.outputSchema !== undefined;
  if (stepResult.toolCalls.length === 0 && !hasOutputSchema) {
    return { stop: true, reason: 'text_response', status: 'completed', output: stepResult.text };
  }
  if (agent.stopWhen?.({ stepCount, stepResult: fullStepResult(stepResult), customState: input.customState }) === true) {
    return { stop: true, reason: 'stop_when', status: 'completed', ...(hasOutputSchema ? {} : { output: stepResult.text }) };
  }
  if (stepCount >= agent.maxSteps) {
    const error = input.outputFailure === undefined ? `Max steps exceeded (${agent.maxSteps})` : `${input.outputFailure}; max steps exceeded (${agent.maxSteps})`;
    return { stop: true, reason: 'max_steps', status: 'failed', error };
  }
  return { stop: false };
}

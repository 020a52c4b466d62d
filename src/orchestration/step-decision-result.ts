import type { AnyAgentConfig } from '../agent/index.js';
import type { StepResult } from '../types/llm.js';
import { InternalError } from '../errors/index.js';

/**
 * What the workflow decides an agent step from: the LLM result's text and tool calls, and its accounting (usage,
 * finish reason, model id) only when a `stopWhen` reads it. Usage is recorded by the LLM step itself.
 *
 * @example
 * const decided: StepDecisionResult = { text: '', toolCalls: [{ id: 'c1', name: 'search', arguments: {} }] };
 */
export type StepDecisionResult = Pick<StepResult, 'text' | 'toolCalls'> & Partial<Omit<StepResult, 'text' | 'toolCalls'>>;

/**
 * The part of `result` an LLM step records for its workflow (issue 11: ~100 bytes a step less): all of it when the
 * agent has a `stopWhen`, else without the accounting nothing in the workflow reads.
 *
 * @example
 * stepDecisionResult(result, agent); // { text, toolCalls } for an agent without stopWhen
 */
export function stepDecisionResult(result: StepResult, agent: Pick<AnyAgentConfig, 'stopWhen'>): StepDecisionResult {
  if (agent.stopWhen !== undefined) return result;
  const { usage: _usage, finishReason: _finishReason, modelId: _modelId, ...decided } = result;
  return decided;
}

/**
 * `result` as the whole StepResult a `stopWhen` gets.
 *
 * @throws InternalError `INTERNAL_ERROR` when the accounting is missing (recorded for an agent that had no stopWhen then).
 * @example
 * agent.stopWhen?.({ stepCount, stepResult: fullStepResult(stepResult), customState });
 */
export function fullStepResult(result: StepDecisionResult): StepResult {
  if (result.usage === undefined || result.finishReason === undefined) {
    throw new InternalError(
      "The step's LLM result was recorded without its usage and finish reason (the agent had no stopWhen when it ran); " +
        'let runs started before stopWhen was added finish on the version without it, or retry() them.',
    );
  }
  return result as StepResult;
}

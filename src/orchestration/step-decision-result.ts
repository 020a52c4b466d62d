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

/**
 * What a `CallLLMStep` decided: the step's result, or an interrupt request it observed instead of calling the model.
 *
 * @example
 * const output: LLMStepOutput = { kind: 'result', result: { text: 'Hi', toolCalls: [] } };
 */
export type LLMStepOutput = { kind: 'result'; result: StepDecisionResult } | { kind: 'interrupted'; reason?: string };

/**
 * How a `CallLLMStep` records its output (journal format 2, issue 21: about 36 bytes a step less): the result itself,
 * without an empty `text`; an interrupt as `{ interrupted: true, reason? }`. A result never has an `interrupted` member.
 *
 * @example
 * recordedLLMOutput({ kind: 'result', result: { text: '', toolCalls } }); // { toolCalls }
 */
export type RecordedLLMOutput = Omit<StepDecisionResult, 'text'> & { text?: string; interrupted?: undefined } | { interrupted: true; reason?: string };

/**
 * The record of `output` (see {@link RecordedLLMOutput}).
 *
 * @example
 * recordedLLMOutput({ kind: 'interrupted', reason: 'stop' }); // { interrupted: true, reason: 'stop' }
 */
export function recordedLLMOutput(output: LLMStepOutput): RecordedLLMOutput {
  if (output.kind === 'interrupted') return output.reason === undefined ? { interrupted: true } : { interrupted: true, reason: output.reason };
  const { text, ...rest } = output.result;
  return text === '' ? rest : { text, ...rest };
}

/**
 * The output a record holds: a format-2 record (see {@link RecordedLLMOutput}) or a format-1 one (the output as is).
 *
 * @example
 * llmOutputOf({ toolCalls }); // { kind: 'result', result: { text: '', toolCalls } }
 */
export function llmOutputOf(recorded: RecordedLLMOutput | LLMStepOutput): LLMStepOutput {
  if ('kind' in recorded) return recorded;
  if (recorded.interrupted === true) return recorded.reason === undefined ? { kind: 'interrupted' } : { kind: 'interrupted', reason: recorded.reason };
  const { interrupted: _interrupted, text, ...rest } = recorded;
  return { kind: 'result', result: { text: text ?? '', ...rest } };
}

import type { Attributes } from '@opentelemetry/api';
import { SpanKind, TraceFlags } from '@opentelemetry/api';
import type { CompletionReason, RunStatus } from '../types/session.js';
import type { StepResult } from '../types/llm.js';
import { telemetry, type AgentTelemetry, type EndedSpan, type SpanScope } from './agent-telemetry.js';
import { modelAttributes, runAttributes, splitModel, stepNameAttributes, TOOL_SAMPLING, toolDurationAttributes } from './span-attributes.js';
import { runSpanId, toolSpanId } from './ids.js';
import { traceIdOf } from './span-emission.js';
import { HelixError } from '../errors/index.js';
import * as attr from './semconv.js';

const seconds = (ms: number): number => ms / 1000;

/** A failed attempt retried inside a step: when, and its error type (a HelixError's code, else `Error`). */
export interface SpanRetry {
  at: number;
  errorType: string;
}

/**
 * The `error.type` of a thrown value: a HelixError's code (never its text), else `Error`.
 *
 * @example
 * chatSpan(scope, { ...details, error: { type: errorTypeOf(error) } });
 */
export function errorTypeOf(error: unknown): string {
  return HelixError.isInstance(error) ? error.code : 'Error';
}

/**
 * The retry event of an attempt that failed now with `error`.
 *
 * @example
 * retries.push(spanRetry(error));
 */
export function spanRetry(error: unknown): SpanRetry {
  return { at: Date.now(), errorType: errorTypeOf(error) };
}

/** What a `chat` span reports of one LLM call. */
export interface ChatSpanDetails {
  step: number;
  startedAt: number;
  endedAt: number;
  /** The model the agent asked for (`provider:model` or the adapter's model key). */
  requestModel?: string;
  result?: StepResult;
  /** ms from the request to the first streamed delta. */
  timeToFirstChunkMs?: number;
  attempt: number;
  recovered?: boolean;
  /** Provider attempts retried inside the step (after a retryable error), with when they failed. */
  retries?: SpanRetry[];
  error?: { type: string; message?: string };
  /** The prompt, when content capture is on (read lazily). */
  input?: () => unknown;
}

/**
 * Emit a `chat <model>` span and the GenAI client metrics of one LLM call.
 *
 * @example
 * chatSpan(scope, { step: 1, startedAt, endedAt: Date.now(), result, attempt: 1 });
 */
export function chatSpan(scope: SpanScope, details: ChatSpanDetails): void {
  const current = telemetry();
  current.later(
    () => recordChat(current, details),
    () => emitChat(current, scope, details),
  );
}

/** The GenAI client metrics of one LLM call. */
function recordChat(current: AgentTelemetry, details: ChatSpanDetails): void {
  const { result } = details;
  const model = modelAttributes(details.requestModel ?? result?.modelId);
  const durationS = seconds(details.endedAt - details.startedAt);
  current.metrics.operationDuration.record(durationS, details.error === undefined ? model.base : { ...model.base, [attr.ERROR_TYPE]: details.error.type });
  if (result !== undefined) {
    current.metrics.tokenUsage.record(result.usage.inputTokens, model.inputTokens);
    current.metrics.tokenUsage.record(result.usage.outputTokens, model.outputTokens);
  }
  if (details.timeToFirstChunkMs !== undefined) current.metrics.timeToFirstChunk.record(seconds(details.timeToFirstChunkMs), model.base);
}

function emitChat(current: AgentTelemetry, scope: SpanScope, details: ChatSpanDetails): void {
  const { result } = details;
  const model = modelAttributes(details.requestModel ?? result?.modelId);
  const attributes = runAttributes(scope);
  attributes[attr.STEP] = details.step;
  attributes[attr.ATTEMPT] = details.attempt;
  if (details.recovered === true) attributes[attr.RECOVERED] = true;
  if (result !== undefined) {
    if (result.modelId !== undefined) attributes[attr.RESPONSE_MODEL] = result.modelId;
    attributes[attr.FINISH_REASONS] = [result.finishReason];
    attributes[attr.INPUT_TOKENS] = result.usage.inputTokens;
    attributes[attr.OUTPUT_TOKENS] = result.usage.outputTokens;
    if (result.usage.cachedInputTokens !== undefined) attributes[attr.CACHE_READ_TOKENS] = result.usage.cachedInputTokens;
    if (result.usage.reasoningTokens !== undefined) attributes[attr.REASONING_TOKENS] = result.usage.reasoningTokens;
    const output = current.captureContent === undefined ? undefined : current.content({ text: result.text, toolCalls: result.toolCalls });
    if (output !== undefined) attributes[attr.OUTPUT_MESSAGES] = output;
  }
  if (details.timeToFirstChunkMs !== undefined) attributes[attr.TIME_TO_FIRST_CHUNK] = seconds(details.timeToFirstChunkMs);
  const input = details.input === undefined || current.captureContent === undefined ? undefined : current.content(details.input());
  if (input !== undefined) attributes[attr.INPUT_MESSAGES] = input;
  const { startedAt: startTime, endedAt: endTime } = details;
  const ended: EndedSpan = { name: model.spanName, kind: SpanKind.CLIENT, startTime, endTime, sampling: model.base, attributes };
  if (details.retries !== undefined && details.retries.length > 0) ended.events = retryEvents(details.retries);
  if (details.error !== undefined) ended.error = details.error;
  current.emit(scope, ended);
}

/** What an `execute_tool` span reports of one tool call. */
export interface ToolSpanDetails {
  step: number;
  toolCallId: string;
  toolName: string;
  startedAt: number;
  endedAt: number;
  outcome: 'success' | 'error' | 'rejected' | 'aborted';
  /** Who ran it: the server (default), the client, a sub-agent, a remote agent. */
  executor?: 'server' | 'client' | 'sub_agent' | 'remote_agent' | 'companion';
  attempt: number;
  recovered?: boolean;
  retries?: SpanRetry[];
  error?: { type: string; message?: string };
  arguments?: unknown;
  result?: unknown;
  /** Attributes of a kind of tool (a skill's name and file). */
  extra?: Attributes;
}

/**
 * Emit an `execute_tool <tool>` span (id from the run and the call id: a sub-agent's runs are its children) and the
 * tool duration metric.
 *
 * @example
 * toolSpan(scope, { step: 1, toolCallId: 'c1', toolName: 'search', startedAt, endedAt, outcome: 'success', attempt: 1 });
 */
export function toolSpan(scope: SpanScope, details: ToolSpanDetails): void {
  const current = telemetry();
  const durationS = seconds(details.endedAt - details.startedAt);
  current.later(
    () => current.metrics.toolDuration.record(durationS, toolDurationAttributes(details.toolName, details.outcome)),
    () => emitTool(current, scope, details),
  );
}

function emitTool(current: AgentTelemetry, scope: SpanScope, details: ToolSpanDetails): void {
  const attributes = runAttributes(scope);
  attributes[attr.TOOL_NAME] = details.toolName;
  attributes[attr.TOOL_CALL_ID] = details.toolCallId;
  attributes[attr.TOOL_TYPE] = details.executor === 'client' ? 'extension' : 'function';
  attributes[attr.TOOL_EXECUTOR] = details.executor ?? 'server';
  attributes[attr.TOOL_OUTCOME] = details.outcome;
  attributes[attr.STEP] = details.step;
  attributes[attr.ATTEMPT] = details.attempt;
  if (details.recovered === true) attributes[attr.RECOVERED] = true;
  if (details.extra !== undefined) Object.assign(attributes, details.extra);
  const args = details.arguments === undefined ? undefined : current.content(details.arguments);
  if (args !== undefined) attributes[attr.TOOL_ARGUMENTS] = args;
  const result = details.result === undefined ? undefined : current.content(details.result);
  if (result !== undefined) attributes[attr.TOOL_RESULT] = result;
  const ended: EndedSpan = {
    name: `execute_tool ${details.toolName}`,
    spanId: toolSpanId(scope.sessionId, details.toolCallId),
    startTime: details.startedAt,
    endTime: details.endedAt,
    sampling: TOOL_SAMPLING,
    attributes,
  };
  if (details.retries !== undefined && details.retries.length > 0) ended.events = retryEvents(details.retries);
  if (details.error !== undefined) ended.error = details.error;
  current.emit(scope, ended);
}

/** The `helix.retry` events of the attempts retried inside a step. */
function retryEvents(retries: readonly SpanRetry[]): NonNullable<EndedSpan['events']> {
  return retries.map((retry) => ({ name: 'helix.retry', time: retry.at, attributes: { [attr.ERROR_TYPE]: retry.errorType } }));
}

/** What an `invoke_agent` span reports of one run. */
export interface RunSpanDetails {
  startedAt: number;
  endedAt: number;
  status: RunStatus;
  completionReason?: CompletionReason;
  stepCount: number;
  previousRunId?: string;
  /** A sub-agent run: the calling session and call (that call's span is this run's parent). */
  parent?: { sessionId: string; toolCallId: string };
  error?: string;
  /** The model the agent calls (`provider:model`), for `gen_ai.provider.name`. */
  modelKey?: string;
}

/**
 * Emit a run's `invoke_agent <agent>` span (id from the run id; a top-level run is the top of its session's trace, a
 * sub-agent's run the child of the calling tool span; a resumed run links to the run it continues) and count the run.
 *
 * @example
 * runSpan(scope, { startedAt: run.startedAt, endedAt: Date.now(), status: 'completed', completionReason: 'text_response', stepCount: 2 });
 */
export function runSpan(scope: SpanScope, details: RunSpanDetails): void {
  const current = telemetry();
  const reason = details.completionReason ?? details.status;
  const counted = { [attr.AGENT_NAME]: scope.agentType, [attr.RUN_STATUS]: details.status, [attr.COMPLETION_REASON]: reason };
  current.later(
    () => current.metrics.runs.add(1, counted),
    () => emitRun(current, scope, details),
    true,
  );
}

function emitRun(current: AgentTelemetry, scope: SpanScope, details: RunSpanDetails): void {
  const [provider] = splitModel(details.modelKey);
  const sampling: Attributes = provider === undefined ? RUN_SAMPLING : { ...RUN_SAMPLING, [attr.PROVIDER]: provider };
  const attributes = runAttributes(scope);
  attributes[attr.AGENT_NAME] = scope.agentType;
  attributes[attr.RUN_STATUS] = details.status;
  attributes[attr.STEP_COUNT] = details.stepCount;
  if (details.completionReason !== undefined) attributes[attr.COMPLETION_REASON] = details.completionReason;
  if (details.previousRunId !== undefined) attributes[attr.PREVIOUS_RUN_ID] = details.previousRunId;
  const ended: EndedSpan = { name: `invoke_agent ${scope.agentType}`, spanId: runSpanId(scope.runId), startTime: details.startedAt, endTime: details.endedAt, sampling, attributes };
  const parentSpanId = details.parent === undefined ? scope.trace?.parentSpanId : toolSpanId(details.parent.sessionId, details.parent.toolCallId);
  if (parentSpanId === undefined) ended.root = true;
  else ended.parentSpanId = parentSpanId;
  if (details.previousRunId !== undefined && details.previousRunId !== scope.runId) {
    const traceId = traceIdOf(scope);
    ended.links = [{ context: { traceId, spanId: runSpanId(details.previousRunId), traceFlags: TraceFlags.SAMPLED, isRemote: true }, attributes: { 'helix.link': 'previous_run' } }];
  }
  const events: NonNullable<EndedSpan['events']> = [];
  if (details.previousRunId !== undefined) events.push({ name: 'helix.run.resumed', time: details.startedAt, attributes: { [attr.PREVIOUS_RUN_ID]: details.previousRunId } });
  if (details.status.startsWith('suspended')) events.push({ name: 'helix.run.suspended', time: details.endedAt, attributes: { [attr.RUN_STATUS]: details.status } });
  if (details.status === 'interrupted' || details.status === 'aborted') events.push({ name: `helix.run.${details.status}`, time: details.endedAt });
  if (events.length > 0) ended.events = events;
  if (details.status === 'failed') ended.error = { type: 'run_failed', ...(details.error === undefined ? {} : { message: details.error }) };
  current.emit(scope, ended);
}

/** What a sampler sees of an `invoke_agent` span when it starts (with the provider when the run's model names one). */
const RUN_SAMPLING: Attributes = Object.freeze({ [attr.OPERATION]: 'invoke_agent' });

/**
 * Record a durable agent step's duration (`helix.agent.step.duration`, by step name: `CallLLMStep`,
 * `ExecuteToolStep:<tool>`, `FinishRunStep`, …).
 *
 * @example
 * stepDuration('CallLLMStep', startedAt);
 */
export function stepDuration(stepName: string, startedAt: number): void {
  const current = telemetry();
  const duration = seconds(Date.now() - startedAt);
  current.later(() => current.metrics.stepDuration.record(duration, stepNameAttributes(stepName)));
}

/**
 * A reader's chunks as they arrive, each live one (written after the reader opened: a replay of older chunks is not
 * lag) measured into `helix.stream.lag`.
 *
 * @example
 * for await (const chunk of measuredStream(await streamManager.createReader(streamId))) send(chunk);
 */
export async function* measuredStream<T extends { timestamp: number }>(chunks: AsyncIterable<T>): AsyncIterable<T> {
  const openedAt = Date.now();
  const lag = telemetry().metrics.streamLag;
  for await (const chunk of chunks) {
    const now = Date.now();
    if (chunk.timestamp >= openedAt) lag.record(seconds(Math.max(0, now - chunk.timestamp)));
    yield chunk;
  }
}

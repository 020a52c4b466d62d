import type { Attributes, Link } from '@opentelemetry/api';
import { SpanKind, TraceFlags } from '@opentelemetry/api';
import type { CompletionReason, RunStatus } from '../types/session.js';
import type { StepResult } from '../types/llm.js';
import { telemetry, type EndedSpan, type SpanScope } from './agent-telemetry.js';
import { chatSpanAttributes, modelAttributes, splitModel, stepNameAttributes, toolDurationAttributes, toolSpanAttributes } from './span-attributes.js';
import { runSpanId, sessionTraceId, toolSpanId } from './ids.js';
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
  const { result } = details;
  const modelKey = details.requestModel ?? result?.modelId;
  const model = modelAttributes(modelKey);
  const durationS = seconds(details.endedAt - details.startedAt);
  current.metrics.operationDuration.record(durationS, details.error === undefined ? model.base : { ...model.base, [attr.ERROR_TYPE]: details.error.type });
  if (result !== undefined) {
    current.metrics.tokenUsage.record(result.usage.inputTokens, model.inputTokens);
    current.metrics.tokenUsage.record(result.usage.outputTokens, model.outputTokens);
  }
  if (details.timeToFirstChunkMs !== undefined) current.metrics.timeToFirstChunk.record(seconds(details.timeToFirstChunkMs), model.base);
  if (!current.tracing) return;
  const attributes = chatSpanAttributes(scope, modelKey);
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
    const output = current.content({ text: result.text, toolCalls: result.toolCalls });
    if (output !== undefined) attributes[attr.OUTPUT_MESSAGES] = output;
  }
  if (details.timeToFirstChunkMs !== undefined) attributes[attr.TIME_TO_FIRST_CHUNK] = seconds(details.timeToFirstChunkMs);
  const input = details.input === undefined || current.captureContent === undefined ? undefined : current.content(details.input());
  if (input !== undefined) attributes[attr.INPUT_MESSAGES] = input;
  const ended: EndedSpan = { name: model.spanName, kind: SpanKind.CLIENT, startTime: details.startedAt, endTime: details.endedAt, attributes };
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
  current.metrics.toolDuration.record(seconds(details.endedAt - details.startedAt), toolDurationAttributes(details.toolName, details.outcome));
  if (!current.tracing) return;
  const attributes = toolSpanAttributes(scope);
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
  current.metrics.runs.add(1, { [attr.AGENT_NAME]: scope.agentType, [attr.RUN_STATUS]: details.status, [attr.COMPLETION_REASON]: reason });
  if (!current.tracing) return;
  const traceId = scope.trace?.traceId ?? sessionTraceId(scope.rootSessionId ?? scope.sessionId);
  const attributes: Attributes = {
    [attr.OPERATION]: 'invoke_agent',
    [attr.AGENT_NAME]: scope.agentType,
    ...providerOf(details.modelKey),
    ...identity(scope),
    [attr.RUN_STATUS]: details.status,
    [attr.STEP_COUNT]: details.stepCount,
    ...(details.completionReason === undefined ? {} : { [attr.COMPLETION_REASON]: details.completionReason }),
    ...(details.previousRunId === undefined ? {} : { [attr.PREVIOUS_RUN_ID]: details.previousRunId }),
  };
  const links: Link[] =
    details.previousRunId === undefined || details.previousRunId === scope.runId
      ? []
      : [{ context: { traceId, spanId: runSpanId(details.previousRunId), traceFlags: TraceFlags.SAMPLED, isRemote: true }, attributes: { 'helix.link': 'previous_run' } }];
  const events = [];
  if (details.previousRunId !== undefined) events.push({ name: 'helix.run.resumed', time: details.startedAt, attributes: { [attr.PREVIOUS_RUN_ID]: details.previousRunId } });
  if (details.status.startsWith('suspended')) events.push({ name: 'helix.run.suspended', time: details.endedAt, attributes: { [attr.RUN_STATUS]: details.status } });
  if (details.status === 'interrupted' || details.status === 'aborted') events.push({ name: `helix.run.${details.status}`, time: details.endedAt });
  const parentSpanId = details.parent === undefined ? undefined : toolSpanId(details.parent.sessionId, details.parent.toolCallId);
  current.emit(scope, {
    name: `invoke_agent ${scope.agentType}`,
    spanId: runSpanId(scope.runId),
    ...(parentSpanId === undefined && scope.trace === undefined ? { root: true } : { parentSpanId: parentSpanId ?? scope.trace!.parentSpanId }),
    startTime: details.startedAt,
    endTime: details.endedAt,
    attributes,
    links,
    events,
    ...(details.status === 'failed' ? { error: { type: 'run_failed', ...(details.error === undefined ? {} : { message: details.error }) } } : {}),
  });
}

/**
 * Record a durable agent step's duration (`helix.agent.step.duration`, by step name: `CallLLMStep`,
 * `ExecuteToolStep:<tool>`, `FinishRunStep`, …).
 *
 * @example
 * stepDuration('CallLLMStep', startedAt);
 */
export function stepDuration(stepName: string, startedAt: number): void {
  telemetry().metrics.stepDuration.record(seconds(Date.now() - startedAt), stepNameAttributes(stepName));
}

function identity(scope: SpanScope): Attributes {
  const conversationId = scope.rootSessionId ?? scope.sessionId;
  return { [attr.CONVERSATION_ID]: conversationId, [attr.AGENT_ID]: scope.sessionId, [attr.SESSION_ID]: scope.sessionId, [attr.RUN_ID]: scope.runId };
}

function providerOf(modelKey: string | undefined): Attributes {
  const [provider] = splitModel(modelKey);
  return provider === undefined ? {} : { [attr.PROVIDER]: provider };
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

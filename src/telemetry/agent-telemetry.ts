import { ProxyTracerProvider, createNoopMeter, metrics, trace } from '@opentelemetry/api';
import type { Counter, Histogram, Meter, Span, Tracer } from '@opentelemetry/api';
import { InvalidArgumentError } from '../errors/index.js';
import * as attr from './semconv.js';
import { batchHeldSpansFor, DEFAULT_SPAN_BATCH_MS, flushHeldSpans, heldHere } from './held-spans.js';
import { honorsSpanIds, inRunContext, startEndedSpan, type EndedSpan, type SpanScope } from './span-emission.js';

export type { EndedSpan, SpanScope } from './span-emission.js';
export { afterRecord, flushHeldSpans, identifyStepsBy } from './held-spans.js';

const INSTRUMENTATION = 'helix-agents-dbos';

/**
 * Tracing and metrics of the executor's runs (OpenTelemetry API; you bring the SDK and the exporter). With no SDK
 * registered every span and instrument is a no-op.
 *
 * @example
 * new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter, telemetry: { captureContent: { maxChars: 2_000 } } });
 */
export interface TelemetryOptions {
  /** Default: the global tracer provider's `helix-agents-dbos` tracer. */
  tracer?: Tracer;
  /** Default: the global meter provider's `helix-agents-dbos` meter. */
  meter?: Meter;
  /**
   * Prompts, completions, tool arguments and results on spans (`gen_ai.input.messages`, …). Off by default (they may
   * hold personal data); `true` bounds each attribute to 4,000 characters.
   */
  captureContent?: boolean | { maxChars: number };
  /**
   * How long (ms) the spans and metric records of a recorded step wait to go out with other steps' (default 20; 0:
   * each step's as soon as it is recorded). Batched, they cost about half as much; a run's spans are all out when its
   * result is, but a process killed within this delay of a step's record never exports that step's spans (as a
   * `BatchSpanProcessor`'s buffer). Set 0 where every span of a killed process must reach a synchronous exporter.
   */
  spanBatchMs?: number;
}

/**
 * The process's telemetry: spans emitted when their work ends (with the times it began and ended, under deterministic
 * ids), GenAI and agent metrics. Durable steps emit from their bodies, so a step replayed from its record emits nothing
 * and a step that really runs again emits again.
 */
export class AgentTelemetry {
  readonly captureContent: number | undefined;
  readonly spanBatchMs: number;
  private readonly tracer: Tracer | undefined;
  private readonly globalTracer: boolean;
  private readonly instruments: Instruments;
  private readonly meter: Meter;
  private stopObserving: (() => void) | undefined;
  /** Whether the tracer's provider gives our spans the ids we ask for (probed once, at the first span). */
  private idsHonored: boolean | undefined;

  /** @throws InvalidArgumentError `INVALID_ARGUMENT` for a tracer, meter or `captureContent` that is not one. */
  constructor(options: TelemetryOptions | false = {}) {
    const given = options === false ? undefined : options;
    checkOptions(given);
    this.tracer = options === false ? undefined : (given?.tracer ?? trace.getTracer(INSTRUMENTATION));
    this.globalTracer = given?.tracer === undefined;
    const capture = given?.captureContent;
    this.spanBatchMs = given?.spanBatchMs ?? DEFAULT_SPAN_BATCH_MS;
    this.captureContent = capture === true ? 4_000 : typeof capture === 'object' ? Math.max(0, Math.floor(capture.maxChars)) : undefined;
    this.meter = options === false ? createNoopMeter() : (given?.meter ?? metrics.getMeter(INSTRUMENTATION));
    this.instruments = instrumentsOf(this.meter);
  }

  /**
   * Report `helix.sessions.waiting_for_human` from `count` (the state store's count, fleet-wide: every process reports
   * the same value, so aggregate it with max or last, not sum). Replaces an earlier source.
   */
  observeWaitingSessions(count: () => Promise<number>): void {
    this.dispose();
    const gauge = this.meter.createObservableGauge('helix.sessions.waiting_for_human', { description: 'Active sessions waiting for a human answer (client tool or approval).' });
    const callback = async (result: { observe(value: number): void }): Promise<void> => {
      result.observe(await count().catch(() => 0));
    };
    gauge.addCallback(callback);
    this.stopObserving = () => gauge.removeCallback(callback);
  }

  /** Stop the observers this telemetry registered (it is being replaced). */
  dispose(): void {
    this.stopObserving?.();
    this.stopObserving = undefined;
  }

  /** Whether spans go anywhere: a tracer was given, or a tracer provider is registered globally. */
  get tracing(): boolean {
    if (this.tracer === undefined) return false;
    if (!this.globalTracer) return true;
    const provider = trace.getTracerProvider();
    return !(provider instanceof ProxyTracerProvider) || provider.getDelegateTracer(INSTRUMENTATION) !== undefined;
  }

  /** The metric instruments (no-ops without a meter provider). */
  get metrics(): Instruments {
    return this.instruments;
  }

  /** `text` bounded for a span attribute, or undefined when content capture is off. */
  content(value: unknown): string | undefined {
    if (this.captureContent === undefined) return undefined;
    const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
    return text.length <= this.captureContent ? text : `${text.slice(0, this.captureContent)}…`;
  }

  /** Emit a span that is over, in the scope's trace (once its step's record commits, inside a journaled step). */
  emit(scope: SpanScope, ended: EndedSpan): void {
    const tracer = this.tracing ? this.tracer : undefined;
    if (tracer === undefined) return;
    const held = heldHere();
    if (held === undefined) this.startSpan(tracer, scope, ended).end(ended.endTime);
    else held.hold({ name: ended.name, endTime: ended.endTime, start: () => this.startSpan(tracer, scope, ended) });
  }

  /**
   * Make metric records with `records`, and build and emit spans with `spans` (only while tracing): inside a journaled
   * step while tracing, once the step's record commits (with its held spans; one hold lookup for both); elsewhere now.
   * `endsRun`: a run's span, which takes the batch of released steps' spans out with it.
   */
  later(records: () => void, spans?: () => void, endsRun = false): void {
    const tracing = this.tracer !== undefined && this.tracing;
    const held = tracing ? heldHere() : undefined;
    if (held === undefined) {
      // A run's span outside a step: its steps' spans, still batched, go out first.
      if (endsRun && tracing) flushHeldSpans();
      records();
      if (tracing) spans?.();
      return;
    }
    held.defer(records);
    if (spans !== undefined) held.defer(spans);
    if (endsRun) held.endsRun = true;
  }

  /**
   * Start a run's DBOS workflow with the run's span active: DBOS's workflow span (DBOS tracing on) becomes its child.
   * As is without tracing or without ids the provider honors.
   */
  startingRun<T>(scope: SpanScope, start: () => T): T {
    if (!this.tracing || this.tracer === undefined) return start();
    return this.honorsIds(this.tracer) ? inRunContext(scope, start) : start();
  }

  private startSpan(tracer: Tracer, scope: SpanScope, ended: EndedSpan): Span {
    return startEndedSpan(tracer, scope, ended, this.honorsIds(tracer));
  }

  private honorsIds(tracer: Tracer): boolean {
    this.idsHonored ??= honorsSpanIds(tracer);
    return this.idsHonored;
  }
}

function checkOptions(given: TelemetryOptions | undefined): void {
  if (given === undefined) return;
  if (typeof given !== 'object' || given === null) throw new InvalidArgumentError('telemetry must be an options object or false.', { field: 'telemetry' });
  if (given.tracer !== undefined && typeof given.tracer?.startSpan !== 'function') throw new InvalidArgumentError('telemetry.tracer must be an OpenTelemetry Tracer.', { field: 'telemetry.tracer' });
  if (given.meter !== undefined && typeof given.meter?.createHistogram !== 'function') throw new InvalidArgumentError('telemetry.meter must be an OpenTelemetry Meter.', { field: 'telemetry.meter' });
  const capture = given.captureContent;
  const maxChars = typeof capture === 'object' && capture !== null ? capture.maxChars : undefined;
  const batchMs = given.spanBatchMs;
  if (batchMs !== undefined && !(Number.isInteger(batchMs) && batchMs >= 0 && batchMs <= 60_000)) {
    throw new InvalidArgumentError('telemetry.spanBatchMs must be an integer from 0 to 60000 (ms).', { field: 'telemetry.spanBatchMs' });
  }
  const valid = capture === undefined || typeof capture === 'boolean' || (Number.isInteger(maxChars) && maxChars! >= 0);
  if (!valid) throw new InvalidArgumentError('telemetry.captureContent must be a boolean or { maxChars: a non-negative integer }.', { field: 'telemetry.captureContent' });
}

/** The metric instruments (GenAI names where the conventions have one). */
export interface Instruments {
  operationDuration: Histogram;
  tokenUsage: Histogram;
  timeToFirstChunk: Histogram;
  stepDuration: Histogram;
  toolDuration: Histogram;
  runs: Counter;
  streamLag: Histogram;
}

function instrumentsOf(source: Meter): Instruments {
  return {
    operationDuration: source.createHistogram(attr.METRIC_OPERATION_DURATION, { unit: 's', description: 'Duration of GenAI operations (LLM calls).' }),
    tokenUsage: source.createHistogram(attr.METRIC_TOKEN_USAGE, { unit: '{token}', description: 'Tokens used by LLM calls.' }),
    timeToFirstChunk: source.createHistogram(attr.METRIC_TIME_TO_FIRST_CHUNK, { unit: 's', description: 'Time from an LLM request to its first streamed chunk.' }),
    stepDuration: source.createHistogram('helix.agent.step.duration', { unit: 's', description: 'Duration of durable agent steps, by step name.' }),
    toolDuration: source.createHistogram('helix.tool.duration', { unit: 's', description: 'Duration of tool calls, by tool and outcome.' }),
    runs: source.createCounter('helix.agent.runs', { description: 'Agent runs ended, by agent, status and completion reason.' }),
    streamLag: source.createHistogram('helix.stream.lag', { unit: 's', description: 'Time from a chunk being written to a live reader receiving it.' }),
  };
}

let active = new AgentTelemetry(false);

/**
 * @internal The process's telemetry (the last executor constructed decides, as for every runtime dependency).
 */
export function telemetry(): AgentTelemetry {
  return active;
}

/** @internal Set the process's telemetry (the executor's constructor). */
export function useTelemetry(next: AgentTelemetry): void {
  if (active !== next) active.dispose();
  active = next;
  batchHeldSpansFor(next.spanBatchMs);
}

import { ProxyTracerProvider, type Meter, type Tracer } from '@opentelemetry/api';
import { AggregationTemporality, DataPointType, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { HelixIdGenerator } from '../../src/telemetry/index.js';
import type { TelemetryOptions } from '../../src/telemetry/agent-telemetry.js';

/**
 * The measured configurations. The three: `telemetry: false` (the baseline), the default (global providers,
 * none registered: the no-op path, "tracing off"), tracing on (SDK tracer provider with an in-memory exporter, SDK
 * meter). The breakdown's three (`HELIX_BENCH_TELEMETRY_BREAKDOWN=1`): the SDK tracer alone, the SDK meter alone, and
 * the API's no-op tracer injected (tracing on, so the package builds every span, but no SDK records them).
 *
 * @example
 * const name: TelemetryConfigurationName = 'tracing';
 */
export type TelemetryConfigurationName = 'baseline' | 'noop' | 'tracing' | 'tracer-only' | 'meter-only' | 'noop-tracer';

/** The configurations, in report order (the baseline first). */
export const TELEMETRY_CONFIGURATIONS: readonly TelemetryConfigurationName[] = ['baseline', 'noop', 'tracing'];

/** The breakdown's extra configurations: which part of tracing on costs what. */
export const BREAKDOWN_CONFIGURATIONS: readonly TelemetryConfigurationName[] = ['tracer-only', 'meter-only', 'noop-tracer'];

/**
 * What a configuration is: its row label, whether the process traces under it, and whether a run emits spans and
 * metric records (checked after every run).
 *
 * @example
 * CONFIGURATIONS.baseline.label; // '(a) telemetry: false (baseline)'
 */
export interface ConfigurationSpec {
  label: string;
  tracing: boolean;
  spans: boolean;
  metrics: boolean;
}

/** Every configuration's spec. */
export const CONFIGURATIONS: Readonly<Record<TelemetryConfigurationName, ConfigurationSpec>> = {
  baseline: { label: '(a) telemetry: false (baseline)', tracing: false, spans: false, metrics: false },
  noop: { label: '(b) default, no SDK registered (tracing off)', tracing: false, spans: false, metrics: false },
  tracing: { label: '(c) tracing on: in-memory exporter + SDK meter', tracing: true, spans: true, metrics: true },
  'tracer-only': { label: '(d) SDK tracer only (meter: API no-op)', tracing: true, spans: true, metrics: false },
  'meter-only': { label: '(e) SDK meter only (tracer: API no-op)', tracing: false, spans: false, metrics: true },
  'noop-tracer': { label: '(f) API no-op tracer injected (spans built, not recorded)', tracing: true, spans: false, metrics: false },
};

/** A metric reader collected by hand between runs (delta temporality: each collection holds the last run's records). */
class BetweenRunsReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.DELTA });
  }

  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }

  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * What one run emitted: spans by operation and metric records.
 *
 * @example
 * const emitted: Emitted = { chat: 21, executeTool: 20, invokeAgent: 1, otherSpans: 0, metricRecords: 128 };
 */
export interface Emitted {
  chat: number;
  executeTool: number;
  invokeAgent: number;
  otherSpans: number;
  /** Histogram recordings (sum of the data points' counts) plus counter increments. */
  metricRecords: number;
}

/**
 * The SDK of configuration (c): a `BasicTracerProvider` with a `BatchSpanProcessor(InMemorySpanExporter)` (the
 * processor the Node SDK puts in front of every exporter; `take` flushes it after each run) and the package's
 * `HelixIdGenerator`, and a `MeterProvider` with a reader collected between runs. Nothing is registered
 * globally, so the default configuration keeps the no-op path in the same process.
 *
 * @example
 * const kit = new TracingKit();
 * new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter, telemetry: telemetryOption('tracing', kit) });
 */
export class TracingKit {
  private readonly exporter = new InMemorySpanExporter();
  private readonly reader = new BetweenRunsReader();
  private readonly tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(this.exporter)], idGenerator: new HelixIdGenerator() });
  private readonly meterProvider = new MeterProvider({ readers: [this.reader] });
  private readonly tracer = this.tracerProvider.getTracer('helix-bench');
  private readonly meter = this.meterProvider.getMeter('helix-bench');

  /** The SDK's tracer and meter (configuration (c)); `tracer-only` and `meter-only` take one of them. */
  get sdk(): { tracer: Tracer; meter: Meter } {
    return { tracer: this.tracer, meter: this.meter };
  }

  /** What was emitted since the last call; the spans are dropped (memory stays flat). */
  async take(): Promise<Emitted> {
    await this.tracerProvider.forceFlush();
    const spans = this.exporter.getFinishedSpans();
    this.exporter.reset();
    const count = (prefix: string): number => spans.filter((span) => span.name.startsWith(prefix)).length;
    const emitted = { chat: count('chat'), executeTool: count('execute_tool '), invokeAgent: count('invoke_agent '), otherSpans: 0, metricRecords: 0 };
    emitted.otherSpans = spans.length - emitted.chat - emitted.executeTool - emitted.invokeAgent;
    const { resourceMetrics } = await this.reader.collect();
    for (const metric of resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics)) {
      for (const point of metric.dataPoints) {
        if (metric.dataPointType === DataPointType.HISTOGRAM) emitted.metricRecords += (point.value as { count: number }).count;
        else if (metric.dataPointType === DataPointType.SUM) emitted.metricRecords += point.value as number;
      }
    }
    return emitted;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.tracerProvider.shutdown(), this.meterProvider.shutdown()]);
  }
}

/** Whether a configuration needs the SDK (the others get the API's no-ops or nothing). */
export const needsSdk = (name: TelemetryConfigurationName): boolean => name === 'tracing' || name === 'tracer-only' || name === 'meter-only';

/**
 * The executor's `telemetry` option for a configuration (`undefined`: left out, the default).
 *
 * @throws Error when the configuration needs the SDK and no kit is given.
 * @example
 * telemetryOption('baseline', undefined); // false
 */
export function telemetryOption(name: TelemetryConfigurationName, kit: TracingKit | undefined): TelemetryOptions | false | undefined {
  if (name === 'baseline') return false;
  if (name === 'noop') return undefined;
  if (name === 'noop-tracer') return { tracer: new ProxyTracerProvider().getTracer('helix-bench') };
  if (kit === undefined) throw new Error(`The "${name}" configuration needs the SDK.`);
  const { tracer, meter } = kit.sdk;
  return name === 'tracing' ? { tracer, meter } : name === 'tracer-only' ? { tracer } : { meter };
}

/**
 * Whether a run under `name` emitted what it must: with spans, a chat span per step, an execute_tool span per tool call
 * and one invoke_agent span (nothing else); with metrics, some records; otherwise none.
 *
 * @example
 * emittedAsExpected('tracing', emitted, 20); // true
 */
export function emittedAsExpected(name: TelemetryConfigurationName, emitted: Emitted, toolSteps: number): boolean {
  const { spans, metrics } = CONFIGURATIONS[name];
  const spansRight = spans
    ? emitted.chat === toolSteps + 1 && emitted.executeTool === toolSteps && emitted.invokeAgent === 1 && emitted.otherSpans === 0
    : emitted.chat + emitted.executeTool + emitted.invokeAgent + emitted.otherSpans === 0;
  return spansRight && (metrics ? emitted.metricRecords > 0 : emitted.metricRecords === 0);
}

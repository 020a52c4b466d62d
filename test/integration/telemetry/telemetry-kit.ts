import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { HelixIdGenerator } from '../../../src/telemetry/index.js';

/** An SDK tracer provider (with the package's id generator) that keeps every ended span in memory. */
export function memoryTracing(options: { idGenerator?: boolean } = {}): { exporter: InMemorySpanExporter; provider: BasicTracerProvider; tracer: ReturnType<BasicTracerProvider['getTracer']> } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    ...(options.idGenerator === false ? {} : { idGenerator: new HelixIdGenerator() }),
  });
  return { exporter, provider, tracer: provider.getTracer('test') };
}

/** The spans of one session tree's trace. */
export function spansOfTrace(exporter: InMemorySpanExporter, traceId: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
}

/** A span's parent span id (SDK 2: `parentSpanContext`). */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

/** A metric reader the test collects from on demand. */
export class CollectingReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}

  /** Every data point of the named metric, collected now. */
  async points(name: string): Promise<Array<{ attributes: Record<string, unknown>; value: unknown }>> {
    const { resourceMetrics } = await this.collect();
    const metric = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((candidate) => candidate.descriptor.name === name);
    return (metric?.dataPoints ?? []).map((point) => ({ attributes: point.attributes, value: point.value }));
  }
}

/** An SDK meter provider read by a {@link CollectingReader}. */
export function memoryMetrics(): { reader: CollectingReader; meter: ReturnType<MeterProvider['getMeter']> } {
  const reader = new CollectingReader();
  const provider = new MeterProvider({ readers: [reader] });
  return { reader, meter: provider.getMeter('test') };
}

/**
 * The spans `pick` selects once there are `count` of them: a run's outcome can be read before its finish step's record
 * commits, and the step's spans go out only after that.
 */
export async function awaitSpans(exporter: InMemorySpanExporter, count: number, pick: (span: ReadableSpan) => boolean): Promise<ReadableSpan[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const spans = exporter.getFinishedSpans().filter(pick);
    if (spans.length >= count || Date.now() > deadline) return spans;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

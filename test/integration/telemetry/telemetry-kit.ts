import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
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

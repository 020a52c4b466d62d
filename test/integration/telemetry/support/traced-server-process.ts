/**
 * The remote agent server of the remote trace tests: `server-process.ts` (the remote sub-agent tests' server, run as
 * `node --import tsx traced-server-process.ts` with the same `HELIX_SERVER_PROCESS` configuration) with a global SDK
 * tracer provider (`HelixIdGenerator`) that appends every ended span to `HELIX_SPAN_FILE` as one JSON line at once,
 * so the spans of a process the test SIGKILLs survive it. Its executor traces through the global provider.
 */
import { appendFileSync } from 'node:fs';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { HelixIdGenerator } from '../../../../src/telemetry/index.js';
import type { FileSpan } from './traced-remote.js';

const file = process.env.HELIX_SPAN_FILE;
if (file === undefined || file === '') throw new Error('HELIX_SPAN_FILE is not set');

function lineOf(span: ReadableSpan): FileSpan {
  return {
    name: span.name,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    ...(span.parentSpanContext === undefined ? {} : { parentSpanId: span.parentSpanContext.spanId }),
    attributes: span.attributes as FileSpan['attributes'],
  };
}

const toFile: SpanProcessor = {
  onStart: () => undefined,
  onEnd: (span) => appendFileSync(file, `${JSON.stringify(lineOf(span))}\n`),
  forceFlush: async () => undefined,
  shutdown: async () => undefined,
};
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [toFile], idGenerator: new HelixIdGenerator() }));

await import('../../server/support/server-process.js');

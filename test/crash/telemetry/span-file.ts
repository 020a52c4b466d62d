/**
 * Spans that survive a SIGKILL: the telemetry crash worker exports every span the moment it ends, one JSON line per
 * span appended synchronously to a file (SimpleSpanProcessor calls the exporter inside `span.end()`), and the parent
 * reads the file after the kill and after the recovery. A span the killed process never ended is not in the file.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { Attributes, Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { HelixIdGenerator } from '../../../src/telemetry/index.js';

/**
 * One exported span, as a line of the span file.
 *
 * @example
 * const tools = readSpanLines(file).filter((line: SpanLine) => line.name === 'execute_tool lookup');
 */
export interface SpanLine {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Attributes;
  links: Array<{ traceId: string; spanId: string; attributes?: Attributes }>;
  /** The process that ended (and exported) the span. */
  pid: number;
}

/** `resultCallback`'s success (`ExportResultCode.SUCCESS` of `@opentelemetry/core`, not a dependency here). */
const EXPORT_SUCCESS = 0;

/**
 * A span exporter appending one {@link SpanLine} per span to `file`, synchronously: once `span.end()` returned, the
 * line is in the file, whatever happens to the process next.
 *
 * @example
 * new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new JsonLinesSpanExporter(file))] });
 */
export class JsonLinesSpanExporter implements SpanExporter {
  constructor(private readonly file: string) {}

  export: SpanExporter['export'] = (spans, resultCallback) => {
    appendFileSync(this.file, spans.map((span) => `${JSON.stringify(lineOf(span))}\n`).join(''));
    resultCallback({ code: EXPORT_SUCCESS });
  };

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * A tracer whose spans (ids from the package's `HelixIdGenerator`) end up in `file`, and its provider.
 *
 * @example
 * const { tracer } = fileTracing('/tmp/spans.jsonl');
 * new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter, telemetry: { tracer } });
 */
export function fileTracing(file: string): { tracer: Tracer; provider: BasicTracerProvider } {
  const provider = new BasicTracerProvider({
    idGenerator: new HelixIdGenerator(),
    spanProcessors: [new SimpleSpanProcessor(new JsonLinesSpanExporter(file))],
  });
  return { tracer: provider.getTracer('helix-crash-drill'), provider };
}

/**
 * Every span line of `file`, in export order (none when no span was exported yet).
 *
 * @example
 * expect(readSpanLines(file).map((line) => line.name)).toContain('invoke_agent crash_drill');
 */
export function readSpanLines(file: string): SpanLine[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as SpanLine);
}

function lineOf(span: ReadableSpan): SpanLine {
  const context = span.spanContext();
  const parentSpanId = span.parentSpanContext?.spanId;
  return {
    name: span.name,
    traceId: context.traceId,
    spanId: context.spanId,
    ...(parentSpanId === undefined ? {} : { parentSpanId }),
    attributes: span.attributes,
    links: span.links.map((link) => ({
      traceId: link.context.traceId,
      spanId: link.context.spanId,
      ...(link.attributes === undefined ? {} : { attributes: link.attributes }),
    })),
    pid: process.pid,
  };
}

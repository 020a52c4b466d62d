/** The ids the next span started by this package must get (set around one synchronous `startSpan`). */
let pendingTraceId: string | undefined;
let pendingSpanId: string | undefined;

/** `groups` × 8 random lowercase hex digits (as the SDK's own generator: ids need to be unique, not secret). */
function randomHex(groups: 2 | 4): string {
  let hex = '';
  let any = 0;
  for (let group = 0; group < groups; group += 1) {
    const word = (Math.random() * 0x1_0000_0000) >>> 0;
    any |= word;
    hex += word.toString(16).padStart(8, '0');
  }
  // All zeros is invalid in W3C trace context.
  return any === 0 ? `${hex.slice(0, -1)}1` : hex;
}

/**
 * An OpenTelemetry SDK id generator that lets helix-agents-dbos give its spans their deterministic ids (one trace per
 * session, a run's span named the same in every process) and generates random ids for every other span. Install it in
 * your tracer provider; without it, a session's spans still share one trace, but flat: each is a child of a virtual
 * session root (no run, tool or sub-agent nesting, no links between runs).
 *
 * @example
 * import { NodeSDK } from '@opentelemetry/sdk-node';
 * const sdk = new NodeSDK({ idGenerator: new HelixIdGenerator(), traceExporter });
 */
export class HelixIdGenerator {
  /** A trace id: the pending one when this package is starting a span, else random. */
  generateTraceId(): string {
    const id = pendingTraceId;
    if (id === undefined) return randomHex(4);
    pendingTraceId = undefined;
    return id;
  }

  /** A span id: the pending one when this package is starting a span, else random. */
  generateSpanId(): string {
    const id = pendingSpanId;
    if (id === undefined) return randomHex(2);
    pendingSpanId = undefined;
    return id;
  }
}

/**
 * @internal Name the ids the next span must get from a `HelixIdGenerator`; {@link clearSpanIds} right after the one
 * synchronous `tracer.startSpan` that takes them (in a `finally`).
 *
 * @example
 * pendSpanIds(traceId, spanId);
 * try { span = tracer.startSpan(name, options, parent); } finally { clearSpanIds(); }
 */
export function pendSpanIds(traceId: string | undefined, spanId: string): void {
  pendingTraceId = traceId;
  pendingSpanId = spanId;
}

/**
 * @internal Forget ids a `startSpan` did not take (a provider without `HelixIdGenerator`, a root span's unused trace id).
 *
 * @example
 * clearSpanIds();
 */
export function clearSpanIds(): void {
  pendingTraceId = undefined;
  pendingSpanId = undefined;
}

/**
 * @internal Run `start` (one synchronous `tracer.startSpan`) with the ids the span must get from a `HelixIdGenerator`.
 *
 * @example
 * const span = withSpanIds({ spanId: runSpanId('r1') }, () => tracer.startSpan('invoke_agent assistant'));
 */
export function withSpanIds<T>(ids: { traceId?: string; spanId: string }, start: () => T): T {
  pendSpanIds(ids.traceId, ids.spanId);
  try {
    return start();
  } finally {
    clearSpanIds();
  }
}

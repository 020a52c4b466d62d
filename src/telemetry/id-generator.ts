/**
 * The ids the next span started by this package must get (set around one synchronous `startSpan`).
 * @internal
 */
let pending: { traceId?: string; spanId?: string } | undefined;

/** Random lowercase hex of `bytes` bytes (as the SDK's own generator: ids need to be unique, not secret). */
const random = (bytes: number): string => {
  let hex = '';
  for (let index = 0; index < bytes; index += 4) hex += ((Math.random() * 0x1_0000_0000) >>> 0).toString(16).padStart(8, '0');
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
};

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
    const id = pending?.traceId;
    if (id === undefined) return random(16);
    pending = { ...pending, traceId: undefined };
    return id;
  }

  /** A span id: the pending one when this package is starting a span, else random. */
  generateSpanId(): string {
    const id = pending?.spanId;
    if (id === undefined) return random(8);
    pending = { ...pending, spanId: undefined };
    return id;
  }
}

/**
 * @internal Run `start` (one synchronous `tracer.startSpan`) with the ids the span must get from a `HelixIdGenerator`.
 */
export function withSpanIds<T>(ids: { traceId?: string; spanId: string }, start: () => T): T {
  pending = ids;
  try {
    return start();
  } finally {
    pending = undefined;
  }
}

import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../src/errors/index.js';
import { AgentTelemetry } from '../../../src/telemetry/agent-telemetry.js';
import { HelixIdGenerator, withSpanIds } from '../../../src/telemetry/id-generator.js';
import { formatTraceparent, parseTraceparent, runSpanId, sessionRootSpanId, sessionTraceId, toolSpanId } from '../../../src/telemetry/ids.js';

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;

describe('deterministic telemetry ids', () => {
  it.each([
    ['trace of a session', () => sessionTraceId('s1'), () => sessionTraceId('s1'), () => sessionTraceId('s2'), HEX32],
    ['span of a run', () => runSpanId('run-1'), () => runSpanId('run-1'), () => runSpanId('run-2'), HEX16],
    ['span of a tool call', () => toolSpanId('s1', 'c1'), () => toolSpanId('s1', 'c1'), () => toolSpanId('s2', 'c1'), HEX16],
    ['virtual session root', () => sessionRootSpanId('s1'), () => sessionRootSpanId('s1'), () => sessionRootSpanId('s2'), HEX16],
  ])('%s: same input, same id; other input, other id', (_name, first, again, other, shape) => {
    expect(first()).toMatch(shape);
    expect(again()).toBe(first());
    expect(other()).not.toBe(first());
  });

  it('are the ids every version computed (a run begun by one version ends under another)', () => {
    expect([sessionTraceId('s1'), runSpanId('run-1'), toolSpanId('s1', 'c1'), sessionRootSpanId('s1'), toolSpanId('sess-ü', 'call_🙂')]).toEqual([
      'f6832aa76b006677ff2158e492a86d87',
      '9a59f6f3d86de6ff',
      '1ab98138c734fbff',
      'cc3736f28eef5f38',
      'd54d269f1da944c9',
    ]);
  });

  it('keeps the parts of a key apart (no concatenation collisions)', () => {
    expect(toolSpanId('s1', 'c1')).not.toBe(toolSpanId('s1c', '1'));
    expect(runSpanId('s1')).not.toBe(sessionRootSpanId('s1'));
  });
});

describe('traceparent', () => {
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  const spanId = 'b7ad6b7169203331';
  it.each([
    ['a sampled header', `00-${traceId}-${spanId}-01`, { traceId, parentSpanId: spanId }],
    ['an unsampled header', `00-${traceId}-${spanId}-00`, { traceId, parentSpanId: spanId }],
    ['an unknown version', `01-${traceId}-${spanId}-01`, undefined],
    ['upper-case hex', `00-${traceId.toUpperCase()}-${spanId}-01`, undefined],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${spanId}-01`, undefined],
    ['an all-zero span id', `00-${traceId}-${'0'.repeat(16)}-01`, undefined],
    ['a short header', `00-${traceId}-${spanId}`, undefined],
    ['a long header', `00-${traceId}-${spanId}-01-extra`, undefined],
    ['no header', undefined, undefined],
  ])('%s', (_name, header, expected) => {
    expect(parseTraceparent(header)).toEqual(expected);
  });

  it('round-trips what it formats', () => {
    expect(parseTraceparent(formatTraceparent(traceId, spanId))).toEqual({ traceId, parentSpanId: spanId });
  });
});

describe('HelixIdGenerator', () => {
  it('gives the pending ids to the next span only, random ids otherwise', () => {
    const generator = new HelixIdGenerator();
    const ids = withSpanIds({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) }, () => [generator.generateSpanId(), generator.generateTraceId(), generator.generateSpanId()]);
    expect(ids.slice(0, 2)).toEqual(['b'.repeat(16), 'a'.repeat(32)]);
    expect(ids[2]).toMatch(HEX16);
    expect(ids[2]).not.toBe('b'.repeat(16));
    expect(generator.generateTraceId()).toMatch(HEX32);
  });
});

describe('telemetry options', () => {
  it.each([
    ['a non-object', 'yes'],
    ['a tracer without startSpan', { tracer: {} }],
    ['a meter without createHistogram', { meter: {} }],
    ['a negative content bound', { captureContent: { maxChars: -1 } }],
    ['a fractional content bound', { captureContent: { maxChars: 1.5 } }],
    ['a string content flag', { captureContent: 'all' }],
  ])('refuses %s with INVALID_ARGUMENT', (_name, options) => {
    expect(() => new AgentTelemetry(options as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => new AgentTelemetry(options as never)).toThrow(InvalidArgumentError);
  });

  it.each([
    ['off by default', undefined, 'x'.repeat(10), undefined],
    ['bounded to 4,000 characters with true', true, 'x'.repeat(5_000), `${'x'.repeat(4_000)}…`],
    ['bounded to maxChars', { maxChars: 3 }, 'abcdef', 'abc…'],
    ['kept whole under the bound', { maxChars: 10 }, 'abc', 'abc'],
    ['JSON for objects', { maxChars: 100 }, { a: 1 }, '{"a":1}'],
  ])('content capture: %s', (_name, captureContent, value, expected) => {
    const telemetry = new AgentTelemetry(captureContent === undefined ? {} : { captureContent });
    expect(telemetry.content(value)).toBe(expected);
  });

  it('is off when turned off, and traces nothing without an SDK', () => {
    expect(new AgentTelemetry(false).tracing).toBe(false);
    expect(new AgentTelemetry({}).tracing).toBe(false); // no global tracer provider registered in this process
  });
});

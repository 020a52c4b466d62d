import { AsyncLocalStorage } from 'node:async_hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError } from '../../../src/errors/index.js';
import { AgentTelemetry, afterRecord, flushHeldSpans, identifyStepsBy, useTelemetry } from '../../../src/telemetry/agent-telemetry.js';
import { runSpan, toolSpan } from '../../../src/telemetry/agent-spans.js';
import { HelixIdGenerator } from '../../../src/telemetry/id-generator.js';

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)], idGenerator: new HelixIdGenerator() }).getTracer('unit');
const steps = new AsyncLocalStorage<object>();
identifyStepsBy(() => steps.getStore());

const scope = { sessionId: 's1', runId: 'r1', agentType: 'assistant' };
const at = 1_790_000_000_000;
const emitTool = (toolCallId: string): void => toolSpan(scope, { step: 1, toolCallId, toolName: 'search', startedAt: at, endedAt: at + 1, outcome: 'success', attempt: 1 });
const emitRun = (): void => runSpan(scope, { startedAt: at, endedAt: at + 5, status: 'completed', completionReason: 'text_response', stepCount: 1 });
const exported = (): string[] => exporter.getFinishedSpans().map((span) => String(span.attributes['gen_ai.tool.call.id'] ?? span.name));

/** A journaled step already recorded: its body emits, its record commits at once. */
const recordedStep = (emit: () => void): Promise<void> => afterRecord((hold) => steps.run({}, () => hold(async () => emit())));

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  useTelemetry(new AgentTelemetry({ tracer }));
});

afterEach(() => {
  flushHeldSpans();
  vi.useRealTimers();
  exporter.reset();
});

afterAll(() => useTelemetry(new AgentTelemetry(false)));

describe('the spans of recorded steps go out in batches (default spanBatchMs: 20)', () => {
  it('20 ms after the first recorded step of the batch, in record order, not before', async () => {
    await recordedStep(() => emitTool('c1'));
    await recordedStep(() => emitTool('c2'));
    vi.advanceTimersByTime(19);
    expect(exported()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(exported()).toEqual(['c1', 'c2']);
  });

  it('at once when the batch holds 64 steps', async () => {
    for (let index = 1; index <= 63; index += 1) await recordedStep(() => emitTool(`c${index}`));
    expect(exported()).toEqual([]);
    await recordedStep(() => emitTool('c64'));
    expect(exported()).toHaveLength(64);
    expect(exported().at(-1)).toBe('c64');
  });

  it("with a run's span: a caller that has the run's result has all of the run's spans", async () => {
    await recordedStep(() => emitTool('c1'));
    await recordedStep(emitRun);
    expect(exported()).toEqual(['c1', 'invoke_agent assistant']);
  });

  it("with a run's span emitted outside any step, the batched spans first", async () => {
    await recordedStep(() => emitTool('c1'));
    emitRun();
    expect(exported()).toEqual(['c1', 'invoke_agent assistant']);
  });

  it('at flushHeldSpans() (an executor closing)', async () => {
    await recordedStep(() => emitTool('c1'));
    flushHeldSpans();
    expect(exported()).toEqual(['c1']);
  });

  it('spanBatchMs: 0 sends each step at its record; the batch held is sent when the option changes', async () => {
    await recordedStep(() => emitTool('c1'));
    useTelemetry(new AgentTelemetry({ tracer, spanBatchMs: 0 }));
    expect(exported()).toEqual(['c1']);
    await recordedStep(() => emitTool('c2'));
    expect(exported()).toEqual(['c1', 'c2']);
  });

  it.each([-1, 1.5, 60_001, '20', null])('refuses spanBatchMs %s', (spanBatchMs) => {
    const build = () => new AgentTelemetry({ tracer, spanBatchMs: spanBatchMs as number });
    expect(build).toThrow(InvalidArgumentError);
    expect(build).toThrow(/spanBatchMs/);
  });
});

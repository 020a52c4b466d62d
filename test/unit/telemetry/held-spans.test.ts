import { AsyncLocalStorage } from 'node:async_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Meter } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentTelemetry, afterRecord, identifyStepsBy, useTelemetry } from '../../../src/telemetry/agent-telemetry.js';
import { stepDuration, toolSpan } from '../../../src/telemetry/agent-spans.js';
import { HelixIdGenerator } from '../../../src/telemetry/id-generator.js';

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)], idGenerator: new HelixIdGenerator() }).getTracer('unit');
/** A meter whose histograms write what they record here (as `<metric> <value>`). */
const recorded: string[] = [];
const meter = {
  createHistogram: (name: string) => ({ record: (value: number) => void recorded.push(`${name} ${value}`) }),
  createCounter: (name: string) => ({ add: (value: number) => void recorded.push(`${name} ${value}`) }),
  createObservableGauge: () => ({ addCallback: () => undefined, removeCallback: () => undefined }),
} as unknown as Meter;
useTelemetry(new AgentTelemetry({ tracer, spanBatchMs: 0 }));

/** Stands for DBOS's step context: each step body runs with an object of its own (as `DBOS.stepStatus`). */
const steps = new AsyncLocalStorage<object>();
identifyStepsBy(() => steps.getStore());

const scope = { sessionId: 's1', runId: 'r1', agentType: 'assistant' };
const emitTool = (toolCallId: string): void =>
  toolSpan(scope, { step: 1, toolCallId, toolName: 'search', startedAt: 1_790_000_000_000, endedAt: 1_790_000_000_001, outcome: 'success', attempt: 1 });
const exported = (): string[] => exporter.getFinishedSpans().map((span) => String(span.attributes['gen_ai.tool.call.id']));

/** A journaled step as the journal runs one: its body in a step context of its own, then its record. */
function journaledStep(body: () => Promise<void>, record: Promise<void>): Promise<void> {
  return afterRecord((hold) => steps.run({}, () => hold(body)).then(() => record));
}

/** A promise and the function that settles it: a step's record committing (or failing) when the test says. */
function pending(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
  let resolve = (): void => undefined;
  let reject: (error: Error) => void = () => undefined;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

afterEach(() => {
  exporter.reset();
  recorded.length = 0;
});

describe('spans of a journaled step', () => {
  it('go out only after the step is recorded, once, before the caller carries on', async () => {
    const record = pending();
    const step = journaledStep(async () => emitTool('c1'), record.promise);
    await nextTurn();
    expect(exported()).toEqual([]);
    record.resolve();
    await step;
    expect(exported()).toEqual(['c1']);
    await nextTurn();
    expect(exported()).toEqual(['c1']);
  });

  it('are held per step: a step recorded first does not send a concurrent step’s spans', async () => {
    const first = pending();
    const second = pending();
    const steps = [journaledStep(async () => emitTool('first'), first.promise), journaledStep(async () => emitTool('second'), second.promise)];
    await nextTurn();
    second.resolve();
    await steps[1];
    await nextTurn();
    expect(exported()).toEqual(['second']);
    first.resolve();
    await steps[0];
    expect(exported()).toEqual(['second', 'first']);
  });

  it('go out when the step is recorded as failed too (its record is its error)', async () => {
    const record = pending();
    const step = journaledStep(async () => emitTool('c1'), record.promise);
    record.reject(new Error('tool failed'));
    await expect(step).rejects.toThrow('tool failed');
    expect(exported()).toEqual(['c1']);
  });

  it('outside a journaled step, go out at once', () => {
    emitTool('c1');
    expect(exported()).toEqual(['c1']);
  });

  it('a tracer that throws while the held spans go out does not fail the recorded step', async () => {
    const throwing = new AgentTelemetry({ tracer: { ...tracer, startSpan: () => { throw new Error('exporter down'); } }, spanBatchMs: 0 });
    useTelemetry(throwing);
    try {
      await expect(journaledStep(async () => emitTool('c1'), Promise.resolve())).resolves.toBeUndefined();
    } finally {
      useTelemetry(new AgentTelemetry({ tracer, spanBatchMs: 0 }));
    }
    expect(exported()).toEqual([]);
  });
});

describe('metric records of a journaled step', () => {
  const metered = (): AgentTelemetry => new AgentTelemetry({ tracer, meter, spanBatchMs: 0 });
  const toolDurations = (): string[] => recorded.filter((line) => line.startsWith('helix.tool.duration'));

  it('are made once the step is recorded, with its spans, once', async () => {
    useTelemetry(metered());
    try {
      const record = pending();
      const step = journaledStep(async () => emitTool('c1'), record.promise);
      await nextTurn();
      expect(toolDurations()).toEqual([]);
      record.resolve();
      await step;
      expect(exported()).toEqual(['c1']);
      expect(toolDurations()).toEqual(['helix.tool.duration 0.001']);
      await nextTurn();
      expect(toolDurations()).toHaveLength(1);
    } finally {
      useTelemetry(new AgentTelemetry({ tracer, spanBatchMs: 0 }));
    }
  });

  it('wait for the record (a failed record too: its error is the record); outside a journaled step they are made at once', async () => {
    useTelemetry(metered());
    try {
      const record = pending();
      const step = journaledStep(async () => stepDuration('CallLLMStep', Date.now()), record.promise);
      await nextTurn();
      expect(recorded).toEqual([]);
      emitTool('c2');
      expect(toolDurations()).toEqual(['helix.tool.duration 0.001']);
      record.reject(new Error('tool failed'));
      await expect(step).rejects.toThrow();
      expect(recorded.filter((line) => line.startsWith('helix.agent.step.duration'))).toHaveLength(1);
    } finally {
      useTelemetry(new AgentTelemetry({ tracer, spanBatchMs: 0 }));
    }
  });

  it('a meter that throws at the release does not fail the recorded step, nor keep its spans', async () => {
    const throwing = { ...meter, createHistogram: () => ({ record: () => { throw new Error('meter down'); } }) } as unknown as Meter;
    useTelemetry(new AgentTelemetry({ tracer, meter: throwing, spanBatchMs: 0 }));
    try {
      await expect(journaledStep(async () => emitTool('c3'), Promise.resolve())).resolves.toBeUndefined();
      expect(exported()).toEqual(['c3']);
    } finally {
      useTelemetry(new AgentTelemetry({ tracer, spanBatchMs: 0 }));
    }
  });
});

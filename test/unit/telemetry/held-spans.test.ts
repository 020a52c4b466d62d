import { AsyncLocalStorage } from 'node:async_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentTelemetry, afterRecord, identifyStepsBy, useTelemetry } from '../../../src/telemetry/agent-telemetry.js';
import { toolSpan } from '../../../src/telemetry/agent-spans.js';
import { HelixIdGenerator } from '../../../src/telemetry/id-generator.js';

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)], idGenerator: new HelixIdGenerator() }).getTracer('unit');
useTelemetry(new AgentTelemetry({ tracer }));

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

afterEach(() => exporter.reset());

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
    const throwing = new AgentTelemetry({ tracer: { ...tracer, startSpan: () => { throw new Error('exporter down'); } } });
    useTelemetry(throwing);
    try {
      await expect(journaledStep(async () => emitTool('c1'), Promise.resolve())).resolves.toBeUndefined();
    } finally {
      useTelemetry(new AgentTelemetry({ tracer }));
    }
    expect(exported()).toEqual([]);
  });
});

import { NodeSDK } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { activeJournal } from '../../../src/journal/journal.js';
import { HelixIdGenerator, runSpanId, sessionTraceId } from '../../../src/telemetry/index.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';
import { awaitSpans, parentOf } from './telemetry-kit.js';

const lookup = defineTool({ name: 'lookup', description: 'Look up', parameters: z.object({ q: z.string() }), execute: async ({ q }) => ({ found: q }) });
const agent = defineAgent({ name: 'dbos_traced', systemPrompt: 'Look things up.', tools: [lookup], maxSteps: 3 });
const llm = scriptedLLM();
const exporter = new InMemorySpanExporter();
// The SDK registered globally before DBOS launches (DBOS's spans and ours go through it), as the README says; traces
// only (its default metric and log exporters would post to a collector that is not there).
process.env['OTEL_METRICS_EXPORTER'] = 'none';
process.env['OTEL_LOGS_EXPORTER'] = 'none';
const sdk = new NodeSDK({ idGenerator: new HelixIdGenerator(), spanProcessors: [new SimpleSpanProcessor(exporter)], autoDetectResources: false });
let runtime: TestRuntime;
beforeAll(async () => {
  sdk.start();
  runtime = await startTestRuntime('telemetry_dbos_spans', llm.adapter, {}, { tracingEnabled: true });
});
afterAll(async () => {
  await runtime?.shutdown();
  await sdk.shutdown();
});

describe('with DBOS tracing on', () => {
  it("DBOS's workflow span of a run (and its step spans) are in the session trace, under the run's invoke_agent span", async () => {
    llm.use((input) =>
      input.messages.some((message) => message.role === 'tool') ? { type: 'text', text: 'done' } : { type: 'tool_calls', toolCalls: [{ id: 'q1', name: 'lookup', arguments: { q: 'x' } }] },
    );
    const handle = await runtime.executor.execute(agent, 'find', { sessionId: 'dbos-traced' });
    expect((await handle.result()).status).toBe('completed');
    const traceId = sessionTraceId('dbos-traced');
    const [run] = await awaitSpans(exporter, 1, (span) => span.name === 'invoke_agent dbos_traced' && span.spanContext().traceId === traceId);
    expect(run?.spanContext().spanId).toBe(runSpanId(handle.runId));
    const workflow = exporter.getFinishedSpans().filter((span) => span.name === 'helix.runAgent' && span.spanContext().traceId === traceId);
    expect(workflow).toHaveLength(1);
    expect(parentOf(workflow[0]!)).toBe(runSpanId(handle.runId));
    // DBOS's step spans hang under its workflow span, in the same trace (the fused journal records its steps without
    // DBOS's step runner: they get none).
    const dbosSteps = exporter.getFinishedSpans().filter((span) => parentOf(span) === workflow[0]!.spanContext().spanId);
    expect(dbosSteps.map((span) => span.name).sort()).toEqual(activeJournal() === 'public' ? ['BeginRunStep', 'CallLLMStep', 'CallLLMStep', 'ExecuteToolStep:lookup', 'FinishRunStep'] : []);
    for (const step of dbosSteps) expect(step.spanContext().traceId).toBe(traceId);
    // Ours keep their own parents: the run's span.
    const chats = exporter.getFinishedSpans().filter((span) => span.attributes['helix.run.id'] === handle.runId && span.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats).toHaveLength(2);
    for (const chat of chats) expect(parentOf(chat)).toBe(runSpanId(handle.runId));
  });
});

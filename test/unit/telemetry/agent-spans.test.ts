import type { Attributes } from '@opentelemetry/api';
import { AlwaysOnSampler, BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type Sampler } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentTelemetry, useTelemetry } from '../../../src/telemetry/agent-telemetry.js';
import { chatSpan, runSpan, toolSpan } from '../../../src/telemetry/agent-spans.js';
import { HelixIdGenerator } from '../../../src/telemetry/id-generator.js';
import { runSpanId, sessionRootSpanId, sessionTraceId, toolSpanId } from '../../../src/telemetry/ids.js';

const exporter = new InMemorySpanExporter();
const tracerOf = (idGenerator?: HelixIdGenerator) =>
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)], ...(idGenerator === undefined ? {} : { idGenerator }) }).getTracer('unit');
const withIds = new AgentTelemetry({ tracer: tracerOf(new HelixIdGenerator()) });
const withoutIds = new AgentTelemetry({ tracer: tracerOf() });
useTelemetry(withIds);
afterEach(() => {
  exporter.reset();
  useTelemetry(withIds);
});

const scope = { sessionId: 's1', runId: 'r1', agentType: 'assistant' };

describe('spans without HelixIdGenerator in the provider', () => {
  it('every span of the session is a child of its virtual root, in the session trace, with no links', () => {
    useTelemetry(withoutIds);
    // Epoch times: the SDK reads a number below performance.now() as a performance timestamp (a slow start made 1_000 one).
    runSpan(scope, { startedAt: 1_790_000_001_000, endedAt: 1_790_000_002_000, status: 'completed', completionReason: 'text_response', stepCount: 1, previousRunId: 'r0' });
    chatSpan({ ...scope, sessionId: 'child', rootSessionId: 's1' }, { step: 1, startedAt: 1, endedAt: 2, attempt: 1 });
    toolSpan(scope, { step: 1, toolCallId: 'c1', toolName: 'search', startedAt: 1, endedAt: 2, outcome: 'success', attempt: 1 });
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(3);
    for (const span of spans) {
      expect(span.spanContext().traceId).toBe(sessionTraceId('s1'));
      expect(span.parentSpanContext?.spanId).toBe(sessionRootSpanId('s1'));
      expect(span.links).toEqual([]);
    }
    expect(spans[0]?.startTime).toEqual([1_790_000_001, 0]);
    expect(spans[0]?.endTime).toEqual([1_790_000_002, 0]);
  });
});

describe('spans with HelixIdGenerator', () => {
  it('a top-level run is a root of the session trace under its own id; a sub-agent chat span a child of its run', () => {
    runSpan(scope, { startedAt: 1, endedAt: 2, status: 'completed', stepCount: 1 });
    chatSpan({ ...scope, sessionId: 'child', rootSessionId: 'root' }, { step: 1, startedAt: 1, endedAt: 2, attempt: 1, requestModel: 'openai:gpt-5' });
    const [run, chat] = exporter.getFinishedSpans();
    expect(run?.spanContext()).toMatchObject({ traceId: sessionTraceId('s1'), spanId: runSpanId('r1') });
    expect(run?.parentSpanContext).toBeUndefined();
    expect(chat?.attributes).toMatchObject({ 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-5', 'gen_ai.conversation.id': 'root' });
    expect(chat?.spanContext().traceId).toBe(sessionTraceId('root'));
    expect(chat?.parentSpanContext?.spanId).toBe(runSpanId('r1'));
  });
});

describe('span decisions', () => {
  it.each([
    ['a bare model id', 'gpt-5', 'chat gpt-5', undefined],
    ['provider:model', 'anthropic:claude', 'chat claude', 'anthropic'],
    ['no model', undefined, 'chat', undefined],
  ])('chat span name from %s', (_name, requestModel, expectedName, provider) => {
    chatSpan(scope, { step: 1, startedAt: 1, endedAt: 2, attempt: 1, ...(requestModel === undefined ? {} : { requestModel }) });
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe(expectedName);
    expect(span?.attributes['gen_ai.provider.name']).toBe(provider);
  });

  it.each([
    ['completed', 'completed', [], 0],
    ['interrupted', 'interrupted', ['helix.run.interrupted'], 0],
    ['aborted', 'aborted', ['helix.run.aborted'], 0],
    ['parked', 'suspended_client_tool', ['helix.run.suspended'], 0],
    ['failed', 'failed', [], 2],
  ] as const)('a %s run: its events and status', (_name, status, events, statusCode) => {
    runSpan(scope, { startedAt: 1, endedAt: 2, status, stepCount: 1 });
    const [span] = exporter.getFinishedSpans();
    expect(span?.events.map((event) => event.name)).toEqual(events);
    expect(span?.status.code).toBe(statusCode);
  });

  it('a resumed run links to the run it continues; a warm wake (same run) links to nothing', () => {
    runSpan(scope, { startedAt: 1, endedAt: 2, status: 'completed', stepCount: 1, previousRunId: 'r0' });
    runSpan(scope, { startedAt: 1, endedAt: 2, status: 'completed', stepCount: 1, previousRunId: 'r1' });
    const [resumed, woken] = exporter.getFinishedSpans();
    expect(resumed?.links.map((link) => link.context.spanId)).toEqual([runSpanId('r0')]);
    expect(woken?.links).toEqual([]);
  });

  it('a sub-agent run is a child of the calling tool span; a remote run of the caller span it was given', () => {
    runSpan(scope, { startedAt: 1, endedAt: 2, status: 'completed', stepCount: 1, parent: { sessionId: 'p1', toolCallId: 'c1' } });
    runSpan({ ...scope, trace: { traceId: 'a'.repeat(32), parentSpanId: 'b'.repeat(16) } }, { startedAt: 1, endedAt: 2, status: 'completed', stepCount: 1 });
    const [child, remote] = exporter.getFinishedSpans();
    expect(child?.parentSpanContext?.spanId).toBe(toolSpanId('p1', 'c1'));
    expect(remote?.spanContext().traceId).toBe('a'.repeat(32));
    expect(remote?.parentSpanContext?.spanId).toBe('b'.repeat(16));
  });

  it('content stays off tool spans unless captured', () => {
    toolSpan(scope, { step: 1, toolCallId: 'c1', toolName: 'search', startedAt: 1, endedAt: 2, outcome: 'success', attempt: 1, arguments: { q: 'secret' }, result: 'found' });
    const [span] = exporter.getFinishedSpans();
    expect(span?.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    expect(span?.attributes['gen_ai.tool.call.result']).toBeUndefined();
  });
});

describe('what a sampler sees', () => {
  it('the attributes the GenAI conventions name for sampling, when the span starts; the others once it started', () => {
    const seen: Array<{ name: string; attributes: Attributes }> = [];
    const sampler: Sampler = {
      shouldSample: (_context, _traceId, name, _kind, attributes) => {
        seen.push({ name, attributes: { ...attributes } });
        return new AlwaysOnSampler().shouldSample();
      },
    };
    const recording = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)], idGenerator: new HelixIdGenerator(), sampler });
    useTelemetry(new AgentTelemetry({ tracer: recording.getTracer('unit') }));
    chatSpan(scope, { step: 1, startedAt: 1, endedAt: 2, attempt: 1, requestModel: 'openai:gpt-5' });
    toolSpan(scope, { step: 1, toolCallId: 'c1', toolName: 'search', startedAt: 1, endedAt: 2, outcome: 'success', attempt: 1 });
    runSpan(scope, { startedAt: 1, endedAt: 2, status: 'completed', stepCount: 1, modelKey: 'openai:gpt-5' });
    expect(seen.filter((start) => start.name !== 'helix.id_probe')).toEqual([
      { name: 'chat gpt-5', attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-5' } },
      { name: 'execute_tool search', attributes: { 'gen_ai.operation.name': 'execute_tool' } },
      { name: 'invoke_agent assistant', attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.provider.name': 'openai' } },
    ]);
    const [chat, tool, run] = exporter.getFinishedSpans();
    expect(chat?.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'helix.run.id': 'r1', 'helix.step': 1, 'helix.attempt': 1 });
    expect(tool?.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', 'helix.session.id': 's1' });
    expect(run?.attributes).toMatchObject({ 'gen_ai.provider.name': 'openai', 'gen_ai.agent.name': 'assistant', 'helix.run.status': 'completed' });
  });
});

import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentTelemetry, useTelemetry } from '../../../src/telemetry/agent-telemetry.js';
import { chatSpan, runSpan, toolSpan } from '../../../src/telemetry/agent-spans.js';
import { runSpanId, sessionRootSpanId, sessionTraceId, toolSpanId } from '../../../src/telemetry/ids.js';

// No HelixIdGenerator is constructed in this file: the fallback a user without it gets.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
useTelemetry(new AgentTelemetry({ tracer: provider.getTracer('unit') }));
afterEach(() => exporter.reset());

const scope = { sessionId: 's1', runId: 'r1', agentType: 'assistant' };

describe('spans without HelixIdGenerator', () => {
  it('a top-level run is a child of the virtual session root, in the session trace', () => {
    runSpan(scope, { startedAt: 1_000, endedAt: 2_000, status: 'completed', completionReason: 'text_response', stepCount: 1 });
    const [span] = exporter.getFinishedSpans();
    expect(span?.spanContext().traceId).toBe(sessionTraceId('s1'));
    expect(span?.parentSpanContext?.spanId).toBe(sessionRootSpanId('s1'));
    expect(span?.startTime).toEqual([1, 0]);
    expect(span?.endTime).toEqual([2, 0]);
  });

  it('a chat span is a child of its run, in the root session trace of a sub-agent', () => {
    chatSpan({ ...scope, sessionId: 'child', rootSessionId: 'root' }, { step: 1, startedAt: 1, endedAt: 2, attempt: 1, requestModel: 'openai:gpt-5' });
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('chat gpt-5');
    expect(span?.attributes).toMatchObject({ 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-5', 'gen_ai.conversation.id': 'root' });
    expect(span?.spanContext().traceId).toBe(sessionTraceId('root'));
    expect(span?.parentSpanContext?.spanId).toBe(runSpanId('r1'));
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

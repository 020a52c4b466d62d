import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { runSpanId, sessionTraceId, toolSpanId } from '../../../src/telemetry/index.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';
import { executions, frontDesk, treeScript } from '../sub-agents/hitl-kit.js';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { awaitSpans, memoryTracing, parentOf, spansOfTrace } from './telemetry-kit.js';

const lookup = defineTool({ name: 'lookup', description: 'Look up', parameters: z.object({ q: z.string() }), execute: async ({ q }) => ({ found: q.toUpperCase() }) });
const researcher = defineAgent({ name: 'tele_researcher', systemPrompt: 'Research.', tools: [lookup], maxSteps: 4 });
const llm = scriptedLLM();
const tracing = memoryTracing();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('telemetry_traces', llm.adapter, { hitlWarmWindowMs: 300, telemetry: { tracer: tracing.tracer } });
});
afterAll(async () => {
  await runtime?.shutdown();
});

describe('OpenTelemetry traces', () => {
  it('a run is an invoke_agent span over its chat and execute_tool spans, in the session trace; a second turn joins it', async () => {
    llm.use((input) =>
      input.messages.some((message) => message.role === 'tool')
        ? { type: 'text', text: 'done' }
        : { type: 'tool_calls', toolCalls: [{ id: 'l1', name: 'lookup', arguments: { q: 'otel' } }] },
    );
    const first = await runtime.executor.execute(researcher, 'find', { sessionId: 'tele-1' });
    expect((await first.result()).status).toBe('completed');
    const second = await runtime.executor.execute(researcher, 'again', { sessionId: 'tele-1' });
    expect((await second.result()).status).toBe('completed');

    const spans = spansOfTrace(tracing.exporter, sessionTraceId('tele-1'));
    const runs = spans.filter((span) => span.name === 'invoke_agent tele_researcher');
    expect(runs.map((span) => span.spanContext().spanId).sort()).toEqual([runSpanId(first.runId), runSpanId(second.runId)].sort());
    for (const run of runs) expect(parentOf(run)).toBeUndefined(); // each run is a top of the session's trace
    const firstRun = runs.find((span) => span.attributes['helix.run.id'] === first.runId)!;
    expect(firstRun.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'tele_researcher',
      'gen_ai.provider.name': 'mock',
      'gen_ai.conversation.id': 'tele-1',
      'helix.run.status': 'completed',
      'helix.run.completion_reason': 'text_response',
      'helix.run.step_count': 2,
    });
    const chats = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat' && span.attributes['helix.run.id'] === first.runId);
    expect(chats.map((span) => span.attributes['helix.step']).sort()).toEqual([1, 2]);
    for (const chat of chats) {
      expect(parentOf(chat)).toBe(runSpanId(first.runId));
      expect(chat.attributes).toMatchObject({ 'helix.attempt': 1, 'gen_ai.response.finish_reasons': [expect.any(String)] });
      expect(typeof chat.attributes['gen_ai.usage.input_tokens']).toBe('number');
      expect(chat.attributes['gen_ai.input.messages']).toBeUndefined(); // content is off by default
    }
    const tool = spans.find((span) => span.name === 'execute_tool lookup')!;
    expect(tool.spanContext().spanId).toBe(toolSpanId('tele-1', 'l1'));
    expect(parentOf(tool)).toBe(runSpanId(first.runId));
    expect(tool.attributes).toMatchObject({ 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.call.id': 'l1', 'helix.tool.outcome': 'success', 'helix.attempt': 1 });
    expect(tool.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    // Each span emitted once.
    const ids = spans.map((span) => span.spanContext().spanId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('the turns of a persistent session, and an interrupted one, are runs of the session trace', async () => {
    llm.use(() => ({ type: 'text', text: 'hello back' }));
    const first = await runtime.executor.execute(researcher, 'hi', { sessionId: 'tele-persistent', mode: 'persistent' });
    expect((await first.result()).status).toBe('completed');
    const second = await runtime.executor.execute(researcher, 'again', { sessionId: 'tele-persistent', mode: 'persistent' });
    expect((await second.result()).status).toBe('completed');
    const inSession = (sessionId: string) => (span: ReadableSpan) => span.spanContext().traceId === sessionTraceId(sessionId) && span.name === 'invoke_agent tele_researcher';
    const runs = await awaitSpans(tracing.exporter, 2, inSession('tele-persistent'));
    expect(runs.map((span) => span.attributes['helix.run.id'])).toEqual([first.runId, second.runId]);
    expect(runs.map((span) => span.spanContext().spanId)).toEqual([runSpanId(first.runId), runSpanId(second.runId)]);

    llm.use(() => ({ type: 'text', text: 'slow answer', delayMs: 2_000 }));
    const slow = await runtime.executor.execute(researcher, 'take your time', { sessionId: 'tele-interrupt' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await slow.interrupt('enough');
    expect((await slow.result()).status).toBe('interrupted');
    const [interrupted] = await awaitSpans(tracing.exporter, 1, inSession('tele-interrupt'));
    expect(interrupted?.attributes['helix.run.status']).toBe('interrupted');
    expect(interrupted?.events.map((event) => event.name)).toContain('helix.run.interrupted');
  });

  it('a sub-agent tree parked for a human and resumed is one trace: children under the calling tool span, the resumed run linked to the parked one', async () => {
    llm.use(treeScript);
    executions.transfer = 0;
    const handle = await runtime.executor.execute(frontDesk, 'pay', { sessionId: 'tele-park' });
    const childCall = 'tx-tele-park-sub-desk-1';
    expect(await handle.result()).toMatchObject({ status: 'suspended_client_tool' });
    for (let tries = 0; (await runtime.stateStore.getCurrentRun('tele-park'))?.status !== 'suspended_awaiting_children'; tries += 1) {
      if (tries > 600) throw new Error('the root never parked');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await runtime.executor.submitToolResult({ kind: 'approval-response', sessionId: 'tele-park', toolCallId: childCall, approvalId: childCall, approved: true });
    const resumed = await runtime.executor.resume(frontDesk, 'tele-park');
    expect(await resumed.result()).toMatchObject({ status: 'completed' });

    const spans = spansOfTrace(tracing.exporter, sessionTraceId('tele-park'));
    const roots = spans.filter((span) => span.name === 'invoke_agent front_desk');
    expect(roots.map((span) => span.attributes['helix.run.status'])).toEqual(['suspended_awaiting_children', 'completed']);
    const [parked, continued] = roots;
    expect(continued!.attributes['helix.run.previous_id']).toBe(parked!.attributes['helix.run.id']);
    expect(continued!.links.map((link) => link.context.spanId)).toEqual([parked!.spanContext().spanId]);
    expect(parked!.events.map((event) => event.name)).toContain('helix.run.suspended');
    expect(continued!.events.map((event) => event.name)).toContain('helix.run.resumed');

    const bankerRuns = spans.filter((span) => span.name === 'invoke_agent banker');
    expect(bankerRuns.length).toBeGreaterThanOrEqual(2); // parked, then resumed
    const deskTool = spans.filter((span) => span.name === 'execute_tool subagent__banker');
    expect(deskTool).toHaveLength(1);
    expect(deskTool[0]!.attributes).toMatchObject({ 'helix.tool.executor': 'sub_agent', 'helix.tool.outcome': 'success' });
    const deskToolId = deskTool[0]!.spanContext().spanId;
    expect(parentOf(deskTool[0]!)).toBe(runSpanId(String(parked!.attributes['helix.run.id'])));
    for (const run of bankerRuns) expect(parentOf(run)).toBe(deskToolId);
    const transfers = spans.filter((span) => span.name === 'execute_tool transfer');
    expect(transfers).toHaveLength(1);
    expect(bankerRuns.map((span) => span.spanContext().spanId)).toContain(parentOf(transfers[0]!));
    const ids = spans.map((span) => span.spanContext().spanId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../../src/agent/index.js';
import { runSpanId, sessionTraceId, toolSpanId } from '../../../src/telemetry/index.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { collectChunks, scriptedLLM } from '../executor/executor-test-kit.js';
import { memoryMetrics, memoryTracing, parentOf, spansOfTrace } from './telemetry-kit.js';

let gate: { release?: () => void } = {};
const pickCity = defineTool({ name: 'pick_city', description: 'Ask the user', parameters: z.object({ prompt: z.string() }), execute: 'client' });
const wire = defineTool({ name: 'wire', description: 'Wire money', parameters: z.object({ amount: z.number() }), requireApproval: true, execute: async ({ amount }) => ({ wired: amount }) });
const wait = defineTool({
  name: 'wait_here',
  description: 'Blocks until released',
  parameters: z.object({}),
  execute: async () => {
    await new Promise<void>((resolve) => (gate.release = resolve));
    return 'released';
  },
});
const agent = defineAgent({
  name: 'tele_details',
  systemPrompt: 'Help.',
  tools: [pickCity, wire, wait],
  maxSteps: 5,
  skills: [{ name: 'pdf-processing', description: 'PDFs.', body: '# PDF', resources: { 'references/forms.md': 'line 1\n' } }],
});
const llm = scriptedLLM();
const tracing = memoryTracing();
const metering = memoryMetrics();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('telemetry_details', llm.adapter, { telemetry: { tracer: tracing.tracer, meter: metering.meter, captureContent: { maxChars: 40 } } });
});
afterAll(async () => {
  await runtime?.shutdown();
});

const results = (input: { messages: Array<{ role: string }> }): number => input.messages.filter((message) => message.role === 'tool').length;
const spansOf = (sessionId: string) => spansOfTrace(tracing.exporter, sessionTraceId(sessionId));

describe('span details', () => {
  it('a client tool wait and an approval wait are spans of the run; content is captured, bounded', async () => {
    llm.use((input) => {
      if (results(input) > 0) return { type: 'text', text: 'all done and then some more words to pass the bound' };
      return {
        type: 'tool_calls',
        toolCalls: [
          { id: 'city-1', name: 'pick_city', arguments: { prompt: 'Where?' } },
          { id: 'wire-1', name: 'wire', arguments: { amount: 5 } },
        ],
      };
    });
    const handle = await runtime.executor.execute(agent, 'go', { sessionId: 'tele-waits' });
    expect((await handle.result()).status).toBe('suspended_client_tool');
    const waiting = async (): Promise<unknown> => (await metering.reader.points('helix.sessions.waiting_for_human'))[0]?.value;
    expect(await waiting()).toBe(1);
    await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'tele-waits', toolCallId: 'city-1', result: { city: 'Oslo' } });
    await runtime.executor.submitToolResult({ kind: 'approval-response', sessionId: 'tele-waits', toolCallId: 'wire-1', approvalId: 'wire-1', approved: true });
    expect(await (await runtime.executor.getHandle(agent, 'tele-waits'))!.result()).toMatchObject({ status: 'completed' });

    expect(await waiting()).toBe(0);
    const spans = spansOf('tele-waits');
    const client = spans.filter((span) => span.name === 'execute_tool pick_city');
    expect(client).toHaveLength(1);
    expect(client[0]!.spanContext().spanId).toBe(toolSpanId('tele-waits', 'city-1'));
    expect(client[0]!.attributes).toMatchObject({ 'helix.tool.executor': 'client', 'helix.tool.outcome': 'success', 'gen_ai.tool.type': 'extension' });
    const approval = spans.filter((span) => span.name === 'await_approval wire');
    expect(approval).toHaveLength(1);
    expect(approval[0]!.attributes['helix.approval.decision']).toBe('approved');
    expect(parentOf(approval[0]!)).toBe(runSpanId(handle.runId));
    const wired = spans.filter((span) => span.name === 'execute_tool wire');
    expect(wired).toHaveLength(1);
    expect(wired[0]!.attributes['gen_ai.tool.call.result']).toBe('{"wired":5}');
    const last = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat').at(-1)!;
    expect(String(last.attributes['gen_ai.output.messages'])).toHaveLength(41); // 40 characters and an ellipsis
    expect(String(last.attributes['gen_ai.input.messages']).endsWith('…')).toBe(true);
  });

  it('an LLM retry is an event of its chat span; tokens and durations are GenAI metrics', async () => {
    llm.use((_input, callIndex) => (callIndex === 0 ? { type: 'error', message: 'overloaded', retryable: true, statusCode: 503 } : { type: 'text', text: 'ok', usage: { inputTokens: 7, outputTokens: 3 } }));
    const handle = await runtime.executor.execute(agent, 'hi', { sessionId: 'tele-retry' });
    const chunks = collectChunks(handle);
    expect((await handle.result()).status).toBe('completed');
    expect((await chunks).length).toBeGreaterThan(0);
    const chats = spansOf('tele-retry').filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats).toHaveLength(1);
    expect(chats[0]!.events.map((event) => event.name)).toEqual(['helix.retry']);
    expect(chats[0]!.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 7, 'gen_ai.usage.output_tokens': 3, 'gen_ai.provider.name': 'mock', 'gen_ai.request.model': 'mock-model' });

    const tokens = await metering.reader.points('gen_ai.client.token.usage');
    const input = tokens.find((point) => point.attributes['gen_ai.token.type'] === 'input');
    expect(input?.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'mock-model' });
    expect((input?.value as { sum: number }).sum).toBeGreaterThanOrEqual(7);
    const durations = await metering.reader.points('gen_ai.client.operation.duration');
    expect(durations.some((point) => point.attributes['error.type'] === undefined)).toBe(true);
    const runs = await metering.reader.points('helix.agent.runs');
    expect(runs.find((point) => point.attributes['helix.run.status'] === 'completed')?.value).toBeGreaterThanOrEqual(1);
    const steps = await metering.reader.points('helix.agent.step.duration');
    expect(steps.map((point) => point.attributes['helix.step.name'])).toEqual(expect.arrayContaining(['BeginRunStep', 'CallLLMStep', 'FinishRunStep']));
    const lag = await metering.reader.points('helix.stream.lag');
    expect(lag.length).toBeGreaterThan(0);
  });

  it('an aborted run ends its span with an abort event and error status; a skill load is a span naming the skill', async () => {
    llm.use((input) => {
      if (results(input) === 0) return { type: 'tool_calls', toolCalls: [{ id: 'skill-1', name: 'load_skill', arguments: { name: 'pdf-processing' } }] };
      return { type: 'tool_calls', toolCalls: [{ id: 'wait-1', name: 'wait_here', arguments: {} }] };
    });
    gate = {};
    const handle = await runtime.executor.execute(agent, 'work', { sessionId: 'tele-abort' });
    while (gate.release === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    await handle.abort('stop');
    gate.release();
    expect((await handle.result()).status).toBe('aborted');
    const spans = spansOf('tele-abort');
    const run = spans.filter((span) => span.name === 'invoke_agent tele_details');
    expect(run).toHaveLength(1);
    expect(run[0]!.attributes['helix.run.status']).toBe('aborted');
    expect(run[0]!.events.map((event) => event.name)).toContain('helix.run.aborted');
    const skill = spans.find((span) => span.name === 'execute_tool load_skill');
    expect(skill?.attributes).toMatchObject({ 'helix.skill.operation': 'load', 'helix.skill.name': 'pdf-processing' });
    const aborted = await metering.reader.points('helix.agent.runs');
    expect(aborted.some((point) => point.attributes['helix.run.status'] === 'aborted')).toBe(true);
  });
});

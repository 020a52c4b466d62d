/**
 * Companion calls in the caller's trace, on real DBOS + Postgres: each companion tool call is one `execute_tool`
 * span (executor `companion`) from the call's start to its end (a blocking call: until the child's turn answered; a
 * non-blocking one: when the call returned), and the companion turn a call started is that span's child.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { companionTurnRunId } from '../../../src/orchestration/companions.js';
import { runSpanId, sessionTraceId, toolSpanId } from '../../../src/telemetry/index.js';
import { startTestRuntime, type TestRuntime } from '../../support/runtime.js';
import { scriptedLLM } from '../executor/executor-test-kit.js';
import { boss, call, clerkReply, desk, parentScript, researcher } from '../companions/companion-kit.js';
import { eventually } from '../persistent/persistent-kit.js';
import { awaitSpans, memoryTracing, parentOf, spansOfTrace } from './telemetry-kit.js';

const llm = scriptedLLM();
const tracing = memoryTracing();
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime('telemetry_companions', llm.adapter, {
    persistentWarmWindowMs: 300,
    hitlWarmWindowMs: 300,
    autoResumeOnSubmit: true,
    telemetry: { tracer: tracing.tracer },
  });
});
afterAll(async () => {
  await runtime?.shutdown();
});

const endOf = (span: ReadableSpan): number => span.endTime[0] * 1_000 + span.endTime[1] / 1e6;
const startOf = (span: ReadableSpan): number => span.startTime[0] * 1_000 + span.startTime[1] / 1e6;

describe('companion calls in the trace', () => {
  it('a companion call is one execute_tool span (executor companion) and the turn it started is its child', async () => {
    llm.use(
      parentScript([
        call('c1', 'spawnAgent', { agentType: 'researcher', name: 'r', message: 'q1' }),
        call('c2', 'spawnAgent', { agentType: 'watcher', name: 'w', message: 'slow look' }),
        call('c3', 'waitForResult', { name: 'w' }),
      ]),
    );
    const handle = await runtime.executor.execute(boss, 'go', { sessionId: 'tele-companion' });
    expect((await handle.result()).status).toBe('completed');
    const trace = sessionTraceId('tele-companion');
    const inTrace = (name: string) => (span: ReadableSpan) => span.spanContext().traceId === trace && span.name === name;
    const spawns = await awaitSpans(tracing.exporter, 2, inTrace('execute_tool companion__spawnAgent'));
    const [researcherRun] = await awaitSpans(tracing.exporter, 1, inTrace('invoke_agent researcher'));
    const [watcherRun] = await awaitSpans(tracing.exporter, 1, inTrace('invoke_agent watcher'));
    const [waited] = await awaitSpans(tracing.exporter, 1, inTrace('execute_tool companion__waitForResult'));

    // One span per call, under the parent's run, with the GenAI tool attributes.
    expect(spawns.map((span) => span.spanContext().spanId).sort()).toEqual([toolSpanId('tele-companion', 'c1'), toolSpanId('tele-companion', 'c2')].sort());
    const blocking = spawns.find((span) => span.attributes['gen_ai.tool.call.id'] === 'c1')!;
    const nonBlocking = spawns.find((span) => span.attributes['gen_ai.tool.call.id'] === 'c2')!;
    for (const span of [blocking, nonBlocking, waited!]) {
      expect(parentOf(span)).toBe(runSpanId(handle.runId));
      expect(span.attributes).toMatchObject({ 'helix.tool.executor': 'companion', 'gen_ai.tool.type': 'function', 'helix.tool.outcome': 'success', 'helix.attempt': 1 });
    }
    expect(blocking.attributes['gen_ai.tool.name']).toBe('companion__spawnAgent');
    expect(waited!.spanContext().spanId).toBe(toolSpanId('tele-companion', 'c3'));

    // The companion turns started by the calls: children of the calls' spans, in the parent's trace.
    expect(researcherRun!.spanContext().spanId).toBe(runSpanId(companionTurnRunId(handle.runId, 'c1')));
    expect(parentOf(researcherRun!)).toBe(toolSpanId('tele-companion', 'c1'));
    expect(parentOf(watcherRun!)).toBe(toolSpanId('tele-companion', 'c2'));
    // A blocking call lasts until the turn answered; a non-blocking one ends when the call returns.
    expect(endOf(blocking)).toBeGreaterThanOrEqual(endOf(researcherRun!));
    expect(startOf(blocking)).toBeLessThanOrEqual(startOf(researcherRun!));
    expect(endOf(nonBlocking)).toBeLessThan(endOf(watcherRun!));
    expect(endOf(waited!)).toBeGreaterThanOrEqual(endOf(watcherRun!));

    // Each span once.
    const ids = spansOfTrace(tracing.exporter, trace).map((span) => span.spanContext().spanId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("a companion's turn not started by a tool call keeps its own trace", async () => {
    llm.use(parentScript([call('d1', 'spawnAgent', { agentType: 'researcher', name: 'solo', message: 'q' })]));
    const handle = await runtime.executor.execute(boss, 'go', { sessionId: 'tele-companion-2' });
    expect((await handle.result()).status).toBe('completed');
    const childSessionId = (await runtime.stateStore.getSubSessionRefs('tele-companion-2'))[0]!.subSessionId;
    const direct = await runtime.executor.execute(researcher, 'hello', { sessionId: childSessionId, mode: 'persistent' });
    expect((await direct.result()).status).toBe('completed');
    const [run] = await awaitSpans(tracing.exporter, 1, (span) => span.name === 'invoke_agent researcher' && span.attributes['helix.run.id'] === direct.runId);
    expect(run!.spanContext().traceId).not.toBe(sessionTraceId('tele-companion-2'));
    expect(parentOf(run!)).not.toBe(toolSpanId('tele-companion-2', 'd1'));
  });

  it('a blocking call whose companion parked for a human is one span from the call to the answer, over both companion turns', async () => {
    let parentCalls = 0;
    llm.use((input) => {
      if (input.agentType === 'clerk') return clerkReply(input);
      parentCalls += 1;
      return parentCalls === 1 ? call('p1', 'spawnAgent', { agentType: 'clerk', name: 'k', message: 'ship it?' }) : { type: 'text', text: 'desk done' };
    });
    const first = await runtime.executor.execute(desk, 'go', { sessionId: 'tele-park' });
    expect((await first.result()).status).toBe('suspended_client_tool');
    await eventually('the parent parked', async () => (await runtime.stateStore.getCurrentRun('tele-park'))?.status === 'suspended_awaiting_children');
    const submitted = await runtime.executor.submitToolResult({ kind: 'client-tool-result', sessionId: 'tele-park', toolCallId: 'confirm-tele-park-agent-k', result: { yes: 1 } });
    expect(submitted).toMatchObject({ status: 'accepted', next: 'resumed' });
    expect(await (await runtime.executor.getHandle(desk, 'tele-park'))?.result()).toMatchObject({ status: 'completed' });

    const trace = sessionTraceId('tele-park');
    const clerkRuns = await awaitSpans(tracing.exporter, 2, (span) => span.spanContext().traceId === trace && span.name === 'invoke_agent clerk');
    const spawns = await awaitSpans(tracing.exporter, 1, (span) => span.spanContext().traceId === trace && span.name === 'execute_tool companion__spawnAgent');
    expect(spawns).toHaveLength(1);
    const spawn = spawns[0]!;
    expect(spawn.spanContext().spanId).toBe(toolSpanId('tele-park', 'p1'));
    expect(spawn.attributes).toMatchObject({ 'helix.tool.executor': 'companion', 'helix.tool.outcome': 'success' });
    // The parked turn and the resumed one are both children of the call's span, which spans them.
    expect(clerkRuns.map((span) => span.attributes['helix.run.status']).sort()).toEqual(['completed', 'suspended_client_tool']);
    for (const run of clerkRuns) expect(parentOf(run)).toBe(toolSpanId('tele-park', 'p1'));
    expect(startOf(spawn)).toBeLessThanOrEqual(Math.min(...clerkRuns.map(startOf)));
    expect(endOf(spawn)).toBeGreaterThanOrEqual(Math.max(...clerkRuns.map(endOf)));
  });
});

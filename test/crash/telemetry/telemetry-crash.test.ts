/**
 * SIGKILL drills of the OpenTelemetry spans (issue 23): spans are emitted by durable step bodies when their work ends,
 * so across a crash each span is exported exactly once. A step recorded before the kill is replayed (its body does not
 * run, nothing is emitted again); the step the kill interrupted never ended, so it exported nothing, and its re-run
 * in the recovering process exports its span once, marked `helix.attempt: 2`, `helix.recovered: true`, under the same
 * deterministic ids. A recorded step's spans go out with the batch of recorded steps (≤ 20 ms after its record). Each worker appends every ended span to a file at once (span-file.ts), so the parent reads what
 * the killed process exported and what the recovering one added.
 */
import { describe, expect, it } from 'vitest';
import { runSpanId, sessionTraceId, toolSpanId } from '../../../src/telemetry/index.js';
import { useDrill } from '../support/drill.js';
import { waitForSignal, type DoomedRun } from '../support/drill-flow.js';
import { DRILL_SCENARIOS } from '../support/drill-scenarios.js';
import { DRILL_TIMEOUTS } from '../support/drill-flow.js';
import { checkpointExists, toolRunCounts, toolStepRecorded } from '../support/durable-probes.js';
import { CRASH_AGENT_NAME } from '../worker/crash-agent.js';
import { readSpanLines, type SpanLine } from './span-file.js';
import { killAndRecoverTraced, startTracedRun, useSpanFiles } from './telemetry-drill.js';

const TOOL_DRILL = 'otel-tool-drill';
const LLM_DRILL = 'otel-llm-drill';
const FINISH_DRILL = 'otel-finish-drill';
/** The fake OpenAI model every worker calls (`openai.chat('fake-model')`). */
const CHAT = 'chat fake-model';
const RUN = `invoke_agent ${CRASH_AGENT_NAME}`;

const env = useDrill('crash_telemetry', {
  sessions: [
    [TOOL_DRILL, DRILL_SCENARIOS.toolCrash, { crash: true }],
    [LLM_DRILL, DRILL_SCENARIOS.betweenSteps, { crash: true }],
    [FINISH_DRILL, DRILL_SCENARIOS.betweenSteps, { crash: false }],
  ],
});
const spanFileOf = useSpanFiles();

/** What a drill asserts of one exported span, in export order. */
interface SpanOutline {
  name: string;
  spanId: string;
  parentSpanId: string | null;
  step: unknown;
  attempt: unknown;
  recovered: unknown;
  /** Which worker exported it. */
  by: 'doomed' | 'recoverer' | `pid ${number}`;
}

function outlineOf(spans: SpanLine[], workers: { doomed: number; recoverer?: number }): SpanOutline[] {
  return spans.map((span) => ({
    name: span.name,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId ?? null,
    step: span.attributes['helix.step'] ?? null,
    attempt: span.attributes['helix.attempt'] ?? null,
    recovered: span.attributes['helix.recovered'] ?? null,
    by: span.pid === workers.doomed ? 'doomed' : span.pid === workers.recoverer ? 'recoverer' : `pid ${span.pid}`,
  }));
}

/** A chat or tool span of the run: a child of the run's span. */
function stepSpan(
  name: string,
  run: DoomedRun,
  details: { step: number; attempt: 1 | 2; by: SpanOutline['by']; spanId?: string },
): SpanOutline {
  const { step, attempt, by } = details;
  const spanId = details.spanId ?? expect.stringMatching(/^[0-9a-f]{16}$/);
  const recovered = attempt === 2 ? true : null;
  return { name, spanId, parentSpanId: runSpanId(run.runId), step, attempt, recovered, by };
}

/** The run's `invoke_agent` span: the top of the session's trace, under the run's deterministic id. */
function runSpan(run: DoomedRun, by: SpanOutline['by']): SpanOutline {
  const spanId = runSpanId(run.runId);
  return { name: RUN, spanId, parentSpanId: null, step: null, attempt: null, recovered: null, by };
}

/** Span ids exported more than once (each id must name one exported span). */
function repeatedIds(spans: SpanLine[]): string[] {
  const ids = spans.map((span) => span.spanId);
  return [...new Set(ids.filter((id, index) => ids.indexOf(id) !== index))];
}

/**
 * The spans the doomed worker exported before the kill: its recorded steps' spans go out in a batch (`spanBatchMs`,
 * 20 ms by default) after their records, so the drill waits for them (bounded) before it kills.
 */
async function expectExportedBeforeKill(spanFile: string, doomed: DoomedRun, beforeKill: SpanOutline[]): Promise<void> {
  await expect.poll(() => outlineOf(readSpanLines(spanFile), { doomed: doomed.worker.pid }), { timeout: 2_000, interval: 5 }).toEqual(beforeKill);
}

/** What every drill asserts of the whole file: one trace, unique ids, one completed run span. */
function expectOneTrace(spans: SpanLine[], run: DoomedRun, stepCount: number): void {
  expect(repeatedIds(spans)).toEqual([]);
  expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([sessionTraceId(run.sessionId)]));
  const runs = spans.filter((span) => span.name === RUN);
  expect(runs).toHaveLength(1);
  expect(runs[0]!.attributes).toMatchObject({
    'gen_ai.operation.name': 'invoke_agent',
    'helix.session.id': run.sessionId,
    'helix.run.id': run.runId,
    'helix.run.status': 'completed',
    'helix.run.step_count': stepCount,
  });
  expect(runs[0]!.links).toEqual([]);
  for (const span of spans) expect(span.attributes['helix.run.id']).toBe(run.runId);
}

describe('crash drill: spans across SIGKILL and recovery', () => {
  it('exports the killed tool call once, as attempt 2, and nothing recorded before the kill again', async () => {
    const spanFile = spanFileOf(TOOL_DRILL);
    const blocked = DRILL_SCENARIOS.toolCrash.blockToolCalls;
    const doomed = await startTracedRun(env, spanFile, 'otel-tool', TOOL_DRILL, blocked);
    await waitForSignal(doomed.worker, "lookup b running and lookup a's step recorded by DBOS", async () => {
      const running = (await toolRunCounts(env.pool, TOOL_DRILL)).call_1_lookup_b === 1;
      return running && (await toolStepRecorded(env.pool, doomed.workflowId, 'call_1_lookup_a'));
    });
    const lookupA = toolSpanId(TOOL_DRILL, 'call_1_lookup_a');
    const lookupB = toolSpanId(TOOL_DRILL, 'call_1_lookup_b');
    // Before the kill: step 1's chat span and lookup a's span; lookup b has not ended, so it exported nothing.
    const beforeKill = [
      stepSpan(CHAT, doomed, { step: 1, attempt: 1, by: 'doomed' }),
      stepSpan('execute_tool lookup', doomed, { step: 1, attempt: 1, by: 'doomed', spanId: lookupA }),
    ];
    await expectExportedBeforeKill(spanFile, doomed, beforeKill);

    const { worker: recoverer, result } = await killAndRecoverTraced(env, spanFile, doomed);

    expect(result).toMatchObject({ sessionId: TOOL_DRILL, runId: doomed.runId, status: 'completed', stepCount: 2 });
    // What really ran: lookup b twice (killed, then re-run), everything else once.
    expect(await toolRunCounts(env.pool, TOOL_DRILL)).toEqual({ call_1_lookup_a: 1, call_1_lookup_b: 2 });
    expect(env.llm.countsByStep(TOOL_DRILL)).toEqual([1, 1]);
    const spans = readSpanLines(spanFile);
    expect(outlineOf(spans, { doomed: doomed.worker.pid, recoverer: recoverer.pid })).toEqual([
      ...beforeKill,
      stepSpan('execute_tool lookup', doomed, { step: 1, attempt: 2, by: 'recoverer', spanId: lookupB }),
      // Step 2's call never ran before the kill: the live tool step of step 1 proved it, so it is a first attempt.
      stepSpan(CHAT, doomed, { step: 2, attempt: 1, by: 'recoverer' }),
      runSpan(doomed, 'recoverer'),
    ]);
    expectOneTrace(spans, doomed, 2);
    const rerun = spans.find((span) => span.spanId === lookupB)!;
    expect(rerun.attributes).toMatchObject({
      'gen_ai.tool.call.id': 'call_1_lookup_b',
      'helix.tool.outcome': 'success',
      'helix.attempt': 2,
      'helix.recovered': true,
    });
  }, 120_000);

  it('never exports a tool span again when killed in a later LLM call; the re-run call is attempt 2', async () => {
    const spanFile = spanFileOf(LLM_DRILL);
    const doomed = await startTracedRun(env, spanFile, 'otel-llm', LLM_DRILL, []);
    await waitForSignal(doomed.worker, "step 1's checkpoint and step 2's LLM request", async () => {
      const committed = await checkpointExists(env.pool, LLM_DRILL, `${doomed.runId}:1`);
      return committed && env.llm.countOf(LLM_DRILL, 2) === 1;
    });
    const lookupA = toolSpanId(LLM_DRILL, 'call_1_lookup_a');
    // Before the kill: step 1 (its call and its tool) is over; step 2's call hangs, so it exported nothing.
    const beforeKill = [
      stepSpan(CHAT, doomed, { step: 1, attempt: 1, by: 'doomed' }),
      stepSpan('execute_tool lookup', doomed, { step: 1, attempt: 1, by: 'doomed', spanId: lookupA }),
    ];
    await expectExportedBeforeKill(spanFile, doomed, beforeKill);

    const { worker: recoverer, result } = await killAndRecoverTraced(env, spanFile, doomed);

    expect(result).toMatchObject({ sessionId: LLM_DRILL, runId: doomed.runId, status: 'completed', stepCount: 2 });
    // What really ran: the tool once (replayed after the kill), step 2's call twice (the killed one never ended).
    expect(await toolRunCounts(env.pool, LLM_DRILL)).toEqual({ call_1_lookup_a: 1 });
    expect(env.llm.countsByStep(LLM_DRILL)).toEqual([1, 2]);
    const spans = readSpanLines(spanFile);
    expect(outlineOf(spans, { doomed: doomed.worker.pid, recoverer: recoverer.pid })).toEqual([
      ...beforeKill,
      stepSpan(CHAT, doomed, { step: 2, attempt: 2, by: 'recoverer' }),
      runSpan(doomed, 'recoverer'),
    ]);
    expectOneTrace(spans, doomed, 2);
    expect(spans.filter((span) => span.spanId === lookupA)).toHaveLength(1);
  }, 120_000);

  it('exports the run span once when killed after the finish step ran but before it was recorded', async () => {
    const spanFile = spanFileOf(FINISH_DRILL);
    const doomed = await startTracedRun(env, spanFile, 'otel-finish', FINISH_DRILL, [], { holdFinish: true });
    await doomed.worker.waitForEvent('paused', DRILL_TIMEOUTS.start, (event) => event.point === 'finish_deferred');
    // The finish step's body is over, its record is not: its spans are held until it is.
    const beforeKill = [
      stepSpan(CHAT, doomed, { step: 1, attempt: 1, by: 'doomed' }),
      stepSpan('execute_tool lookup', doomed, { step: 1, attempt: 1, by: 'doomed', spanId: toolSpanId(FINISH_DRILL, 'call_1_lookup_a') }),
      stepSpan(CHAT, doomed, { step: 2, attempt: 1, by: 'doomed' }),
    ];
    await expectExportedBeforeKill(spanFile, doomed, beforeKill);

    const { worker: recoverer, result } = await killAndRecoverTraced(env, spanFile, doomed);

    expect(result).toMatchObject({ sessionId: FINISH_DRILL, runId: doomed.runId, status: 'completed', stepCount: 2 });
    const spans = readSpanLines(spanFile);
    expect(outlineOf(spans, { doomed: doomed.worker.pid, recoverer: recoverer.pid })).toEqual([...beforeKill, runSpan(doomed, 'recoverer')]);
    expectOneTrace(spans, doomed, 2);
  }, 120_000);
});

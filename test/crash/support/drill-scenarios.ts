/**
 * What the fake LLM answers in each crash drill, by agent step and attempt. Tool call ids are explicit so a
 * crashed session and its uncrashed baseline produce identical histories. `crash` sessions may get a slow
 * or hanging first attempt (the window in which the parent SIGKILLs the worker); baselines never do.
 */
import type { FakeOpenAIResponse } from '../../fixtures/fake-openai/index.js';

/**
 * One scripted conversation.
 *
 * @example
 * const answer = DRILL_SCENARIOS.toolCrash.answer(1, 1, true);
 */
export interface DrillScenario {
  /** The answer to the `attempt`-th request (1-based) of agent step `step` (1-based), or undefined (HTTP 400). */
  answer(step: number, attempt: number, crash: boolean): FakeOpenAIResponse | undefined;
  /** Tool call ids that block forever in a crashing `start` worker (the kill point). */
  blockToolCalls: string[];
}

/**
 * Final text of the stream-crash drill, streamed in these exact deltas.
 *
 * @example
 * expect(textOfStep(visible, 2)).toBe(STREAMED_ANSWER_DELTAS.join(''));
 */
export const STREAMED_ANSWER_DELTAS = ['The ', 'answer ', 'is ', 'forty-two ', 'after ', 'a.'];

/** Milliseconds between SSE events of the stream-crash drill's first, killed attempt. */
const SLOW_CHUNK_DELAY_MS = 400;

const lookup = (key: string, step = 1) => ({ id: `call_${step}_lookup_${key}`, name: 'lookup', arguments: { key } });
const recordFact = (key: string, step = 1) => ({ id: `call_${step}_record_${key}`, name: 'record_fact', arguments: { key } });
const report = (summary: string, step = 1) => ({ id: `call_${step}_report`, name: 'submit_report', arguments: { summary } });

/**
 * One step's answer: fixed, or by attempt (1-based) and whether the session is a crash session.
 *
 * @example
 * const hangFirst: StepAnswer = (attempt, crash) => (crash && attempt === 1 ? { type: 'hang' } : { type: 'text', text: 'Done.' });
 */
export type StepAnswer = FakeOpenAIResponse | ((attempt: number, crash: boolean) => FakeOpenAIResponse);

function byStep(steps: StepAnswer[]): DrillScenario['answer'] {
  return (step, attempt, crash) => {
    const entry = steps[step - 1];
    return typeof entry === 'function' ? entry(attempt, crash) : entry;
  };
}

/**
 * A scenario answering agent step N with `steps[N - 1]`, with no blocking tool call.
 *
 * @example
 * const scenario = scenarioByStep([{ type: 'tool_calls', toolCalls: [pickCity] }, { type: 'text', text: 'Booked.' }]);
 */
export function scenarioByStep(steps: StepAnswer[]): DrillScenario {
  return { answer: byStep(steps), blockToolCalls: [] };
}

/**
 * The scenarios, one per drill.
 *
 * @example
 * server.register('tool-crash-1', DRILL_SCENARIOS.toolCrash, { crash: true });
 */
export const DRILL_SCENARIOS = {
  /** Drill 1: two parallel lookups; `b` blocks (kill during a tool), `a` completes its step first. */
  toolCrash: {
    answer: byStep([
      { type: 'tool_calls', toolCalls: [lookup('a'), lookup('b')] },
      { type: 'text', text: 'Both facts are recorded.' },
    ]),
    blockToolCalls: ['call_1_lookup_b'],
  },
  /** Drill 2: phase-1 lookup completes, the phase-2 finishWith report blocks (kill before the commit). */
  finishCrash: {
    answer: byStep([{ type: 'tool_calls', toolCalls: [lookup('a'), report('a only')] }]),
    blockToolCalls: ['call_1_report'],
  },
  /** Drill 3: step 1 looks up `a`; step 2 streams its answer slowly on the killed attempt. */
  streamCrash: {
    answer: byStep([
      { type: 'tool_calls', toolCalls: [lookup('a')] },
      (attempt, crash) => ({
        type: 'text',
        text: STREAMED_ANSWER_DELTAS,
        ...(crash && attempt === 1 ? { chunkDelayMs: SLOW_CHUNK_DELAY_MS } : {}),
      }),
    ]),
    blockToolCalls: [],
  },
  /** Drill 4: step 1 commits; step 2's first LLM call hangs (kill between steps). */
  betweenSteps: {
    answer: byStep([
      { type: 'tool_calls', toolCalls: [lookup('a')] },
      (attempt, crash) => (crash && attempt === 1 ? { type: 'hang' } : { type: 'text', text: 'Finished after a.' }),
    ]),
    blockToolCalls: [],
  },
  /** Replay test: parallel lookups, then a finishWith report in step 2. */
  replay: {
    answer: byStep([
      { type: 'tool_calls', toolCalls: [lookup('a'), lookup('b')] },
      { type: 'tool_calls', text: 'Reporting.', toolCalls: [report('a and b', 2)] },
    ]),
    blockToolCalls: [],
  },
  /** Recovery-only process with a late executor: the lookup blocks, the recovered step waits for the executor. */
  lateExecutor: {
    answer: byStep([
      { type: 'tool_calls', toolCalls: [lookup('a')] },
      { type: 'text', text: 'Recovered with a late executor.' },
    ]),
    blockToolCalls: ['call_1_lookup_a'],
  },
  /** Rolling deploy: three steps of one lookup each, then an answer (tools are slowed by the worker). */
  threeSteps: {
    answer: byStep([
      { type: 'tool_calls', toolCalls: [lookup('a', 1)] },
      { type: 'tool_calls', toolCalls: [lookup('b', 2)] },
      { type: 'tool_calls', toolCalls: [lookup('c', 3)] },
      { type: 'text', text: 'Three facts.' },
    ]),
    blockToolCalls: [],
  },
  /** Journal switch: two steps of one lookup each commit; step 3's first LLM call hangs (kill between steps). */
  twoStepsThenHang: {
    answer: byStep([
      { type: 'tool_calls', toolCalls: [lookup('a', 1)] },
      { type: 'tool_calls', toolCalls: [lookup('b', 2)] },
      (attempt, crash) => (crash && attempt === 1 ? { type: 'hang' } : { type: 'text', text: 'Two facts.' }),
    ]),
    blockToolCalls: [],
  },
  /** Transactional drills: step 1 records fact `a` in the app database (the kill points are in its transaction). */
  transactionalRecord: {
    answer: byStep([{ type: 'tool_calls', toolCalls: [recordFact('a')] }, { type: 'text', text: 'Fact a is recorded.' }]),
    blockToolCalls: [],
  },
  /** Transactional drill, killed right after the operation is recorded: step 2's first LLM call hangs. */
  transactionalThenHang: {
    answer: byStep([
      { type: 'tool_calls', toolCalls: [recordFact('a')] },
      (attempt, crash) => (crash && attempt === 1 ? { type: 'hang' } : { type: 'text', text: 'Fact a is recorded.' }),
    ]),
    blockToolCalls: [],
  },
  /** Sub-agent drill, parent: delegate a topic to the child (its session id tagged in the topic), then answer. */
  delegateThenAnswer: {
    answer: byStep([{ type: 'tool_calls', toolCalls: [delegate('tool')] }, { type: 'text', text: 'The child reported.' }]),
    blockToolCalls: [],
  },
  /** Sub-agent drill, parent: delegate and look `b` up in the same step; `b` blocks (kill after the child finished). */
  delegateAndBlock: {
    answer: byStep([{ type: 'tool_calls', toolCalls: [delegate('done'), lookup('b')] }, { type: 'text', text: 'Child and b are done.' }]),
    blockToolCalls: ['call_1_lookup_b'],
  },
  /** Sub-agent drill, parent: delegate to the child, then stream the answer slowly on the killed attempt (step 2). */
  delegateThenStream: {
    answer: byStep([
      { type: 'tool_calls', toolCalls: [delegate('stream')] },
      (attempt, crash) => ({ type: 'text', text: STREAMED_ANSWER_DELTAS, ...(crash && attempt === 1 ? { chunkDelayMs: SLOW_CHUNK_DELAY_MS } : {}) }),
    ]),
    blockToolCalls: [],
  },
  /** Sub-agent drill, child: look `x` up (blocks in the killed worker), then finish. */
  childLookup: {
    answer: byStep([
      { type: 'tool_calls', toolCalls: [lookup('x')] },
      { type: 'tool_calls', toolCalls: [{ id: 'call_2_finish', name: '__finish__', arguments: { summary: 'x is known' } }] },
    ]),
    blockToolCalls: ['call_1_lookup_x'],
  },
} satisfies Record<string, DrillScenario>;

/**
 * The session id of the child a drill parent's `delegate` call starts (`${parentSessionId}-sub-call_1_delegate`).
 *
 * @example
 * childOf('sub-tool-drill'); // 'sub-tool-drill-sub-call_1_delegate'
 */
export function childOf(parentSessionId: string): string {
  return `${parentSessionId}-sub-call_1_delegate`;
}

/** The parent's delegate call; its topic carries the child's session tag so the fake server attributes the child's requests. */
function delegate(kind: 'tool' | 'done' | 'stream') {
  return { id: 'call_1_delegate', name: 'subagent__crash_child', arguments: { topic: `topic ${kind} [session:${childOf(`sub-${kind}-drill`)}]` } };
}

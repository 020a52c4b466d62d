/**
 * What the fake LLM answers in the cross-process sub-agent drills, per session of a tree. A child's first user
 * message is `JSON.stringify` of its sub-agent call's arguments, so every delegating call carries the child's
 * `[session:<id>]` tag in its arguments: the fake server then attributes the child's requests to the child.
 * Tool call ids are explicit, so every process (and every assertion) names the same calls.
 */
import { scenarioByStep as byStep, type DrillScenario } from '../support/drill-scenarios.js';
import { HITL_TREE_AGENTS } from '../worker/hitl-agent.js';

/**
 * The session id of the ephemeral child a call starts (`${parentSessionId}-sub-${toolCallId}`).
 *
 * @example
 * subSessionOf('root', 'call_1_bank'); // 'root-sub-call_1_bank'
 */
export function subSessionOf(parentSessionId: string, toolCallId: string): string {
  return `${parentSessionId}-sub-${toolCallId}`;
}

/**
 * Tool call ids of the tree drills (unique across a tree: human calls are routed by id through the root).
 *
 * @example
 * await controlPlane.executor.submitToolResult({ kind: 'approval-response', sessionId: root, toolCallId: TREE_CALLS.transfer, approvalId: TREE_CALLS.transfer, approved: true });
 */
export const TREE_CALLS = {
  /** Crash agent → crash_child. */
  delegate: 'call_1_delegate',
  /** crash_child's lookup. */
  childLookup: 'call_1_lookup_x',
  /** HITL agent → hitl_banker. */
  bank: 'call_1_bank',
  /** hitl_banker's gated transfer (step 1). */
  transfer: 'call_c1_transfer',
  /** hitl_banker → hitl_asker (step 2). */
  ask: 'call_c2_ask',
  /** hitl_asker's client tool. */
  pickCity: 'call_g1_pick_city',
} as const;

/**
 * Final outputs of the tree drills.
 *
 * @example
 * expect(result.output).toBe(TREE_ANSWERS.delegated);
 */
export const TREE_ANSWERS = {
  delegated: 'The child reported.',
  childSummary: { summary: 'x is known' },
  bank: 'The bank is done.',
  receipt: { receipt: 'paid 250' },
  city: { answer: 'Rome' },
} as const;

/**
 * The three sessions of the crash agent's one-child tree: the root delegates to `crash_child`, whose first LLM
 * call hangs on its first attempt in a `crash` registration (the window in which the run is interrupted);
 * any later attempt looks `x` up; then the child finishes and the root answers.
 *
 * @example
 * const tree = hangingChildTree('sub-ctl-llm'); env.llm.register(tree.child, tree.childScenario, { crash: true });
 */
export function hangingChildTree(root: string): { child: string; rootScenario: DrillScenario; childScenario: DrillScenario } {
  const child = subSessionOf(root, TREE_CALLS.delegate);
  const rootScenario = byStep([
    { type: 'tool_calls', toolCalls: [{ id: TREE_CALLS.delegate, name: 'subagent__crash_child', arguments: { topic: `topic x [session:${child}]` } }] },
    { type: 'text', text: TREE_ANSWERS.delegated },
  ]);
  const childScenario = byStep([
    (attempt, crash) =>
      crash && attempt === 1 ? { type: 'hang' } : { type: 'tool_calls', toolCalls: [{ id: TREE_CALLS.childLookup, name: 'lookup', arguments: { key: 'x' } }] },
    { type: 'tool_calls', toolCalls: [{ id: 'call_2_finish', name: '__finish__', arguments: TREE_ANSWERS.childSummary }] },
  ]);
  return { child, rootScenario, childScenario };
}

/**
 * The HITL agent's two-level tree: root → `hitl_banker` (transfer 250, approval-gated; then delegates a question)
 * → `hitl_asker` (`pick_city`, a client tool). Sessions and scenarios.
 *
 * @example
 * const tree = bankTree('sub-nested'); for (const [id, scenario] of tree.scenarios) env.llm.register(id, scenario, { crash: false });
 */
export function bankTree(root: string): { child: string; grandchild: string; scenarios: Array<[string, DrillScenario]> } {
  const child = subSessionOf(root, TREE_CALLS.bank);
  const grandchild = subSessionOf(child, TREE_CALLS.ask);
  const rootScenario = byStep([
    { type: 'tool_calls', toolCalls: [{ id: TREE_CALLS.bank, name: `subagent__${HITL_TREE_AGENTS.child}`, arguments: { task: `pay 250 [session:${child}]` } }] },
    { type: 'text', text: TREE_ANSWERS.bank },
  ]);
  const childScenario = byStep([
    { type: 'tool_calls', toolCalls: [{ id: TREE_CALLS.transfer, name: 'transfer', arguments: { amount: 250 } }] },
    { type: 'tool_calls', toolCalls: [{ id: TREE_CALLS.ask, name: `subagent__${HITL_TREE_AGENTS.grandchild}`, arguments: { question: `Which city? [session:${grandchild}]` } }] },
    { type: 'tool_calls', toolCalls: [{ id: 'call_c3_finish', name: '__finish__', arguments: TREE_ANSWERS.receipt }] },
  ]);
  const grandchildScenario = byStep([
    { type: 'tool_calls', toolCalls: [{ id: TREE_CALLS.pickCity, name: 'pick_city', arguments: { prompt: 'Which city?' } }] },
    { type: 'tool_calls', toolCalls: [{ id: 'call_g2_finish', name: '__finish__', arguments: TREE_ANSWERS.city }] },
  ]);
  return {
    child,
    grandchild,
    scenarios: [
      [root, rootScenario],
      [child, childScenario],
      [grandchild, grandchildScenario],
    ],
  };
}

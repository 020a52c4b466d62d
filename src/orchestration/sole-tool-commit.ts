import type { AnyAgentConfig } from '../agent/index.js';
import type { Message } from '../types/message.js';
import { orderMessages, outcomeMessage } from './step-messages.js';
import type { StepProcessingPlan } from './step-plan-types.js';
import type { ToolOutcome } from './tool-outcome.js';

/**
 * What a tool step needs to record its agent step's commit itself: the messages around its result.
 *
 * @example
 * const commit: SoleToolCommit = { head: [plan.assistantMessage], tail: [] };
 */
export interface SoleToolCommit {
  /** Before the tool's result: the step's assistant message. */
  head: Message[];
  /** After it: the finish reminder, if the step has one. */
  tail: Message[];
}

/**
 * The commit a step's single server tool call may record with its own result, or `undefined` when the step has any
 * other work (another call, a gate, a client tool, a child, a companion, a remote call, a rejected call, finishWith
 * tools, a `__finish__`) or the agent has a `stopWhen` (it reads the committed state from the workflow). The tool
 * step still decides whether it can (same database, no onMessage/afterTool hooks) and says so in `committed`.
 *
 * @example
 * const commit = soleToolCommit(plan, agent); // { head: [assistant], tail: [] } for one plain tool call
 */
export function soleToolCommit(plan: StepProcessingPlan, agent: Pick<AnyAgentConfig, 'stopWhen'>): SoleToolCommit | undefined {
  const others =
    plan.approvalCalls.length +
    plan.clientToolCalls.length +
    plan.subAgentCalls.length +
    plan.remoteCalls.length +
    plan.companionCalls.length +
    plan.toolErrors.length +
    plan.finishWithCalls.length;
  if (plan.serverToolCalls.length !== 1 || others > 0 || plan.finishCall !== undefined || agent.stopWhen !== undefined) return undefined;
  return { head: [plan.assistantMessage], tail: plan.finishReminder === undefined ? [] : [plan.finishReminder] };
}

/**
 * The messages of a step committed with its single tool call: the head, the tool's result, the tail — the same
 * messages the workflow commits for that step otherwise.
 *
 * @example
 * const messages = soleToolCommitMessages(commit, outcome);
 */
export function soleToolCommitMessages(commit: SoleToolCommit, outcome: ToolOutcome): Message[] {
  return orderMessages(commit.head, [outcomeMessage(outcome)], commit.tail);
}

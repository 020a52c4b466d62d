import { DBOS } from '@dbos-inc/dbos-sdk';
import type { ServerTool, ToolContext } from '../agent/index.js';
import { findEffectiveTool, type PlannedToolCall } from '../orchestration/index.js';
import { stepEnvironment, type RunScope } from './step-scope.js';
import { ToolContractError } from '../errors/index.js';

/** Input of `ApprovalGateStep.evaluate`. */
export interface ApprovalGateInput extends RunScope {
  step: number;
  call: PlannedToolCall;
}

/**
 * Evaluates a function-form `requireApproval` inside a durable step, so the suspend-or-run decision is a
 * checkpointed boolean (replay-deterministic even for a non-pure predicate). Fails closed: a throwing
 * predicate means approval is required.
 *
 * @example
 * const required = await ApprovalGateStep.evaluate({ ...scope, step: 1, call });
 */
export class ApprovalGateStep {
  @DBOS.step({ name: 'ApprovalGateStep' })
  static async evaluate(input: ApprovalGateInput): Promise<boolean> {
    const { dependencies, agent } = await stepEnvironment(input, input.step);
    const tool = findEffectiveTool(agent, input.call.toolName) as ServerTool<any, unknown, Record<string, unknown>> | undefined;
    const gate = tool?.requireApproval;
    if (typeof gate !== 'function') return gate === true;
    const state = await dependencies.stateStore.loadState(input.sessionId);
    const customState = state?.customState ?? {};
    const context: ToolContext<Record<string, unknown>> = {
      getState: () => customState,
      updateState: () => {
        throw new ToolContractError("requireApproval predicates cannot change state; read it with getState() and change it in the tool's execute.");
      },
      emit: () => undefined,
      abortSignal: new AbortController().signal,
      sessionId: input.sessionId,
      toolCallId: input.call.toolCallId,
      agentType: input.agentType,
    };
    try {
      return (await gate(input.call.input, context)) !== false;
    } catch {
      dependencies.logger.warn('approval.predicate_failed', { sessionId: input.sessionId, toolCallId: input.call.toolCallId });
      return true;
    }
  }
}

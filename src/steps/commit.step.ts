import { DBOS } from '@dbos-inc/dbos-sdk';
import type { Message } from '../types/message.js';
import { checkpointIdFor } from '../workflows/workflow-ids.js';
import type { ToolOutcome } from './execute-tool.step.js';
import { hookIdentity, stepEnvironment, type RunScope } from './step-scope.js';

/** A tool call answered without running (unknown tool, invalid arguments, …): streamed as a failed tool_end. */
export interface RejectedToolCall {
  toolCallId: string;
  toolName: string;
  error: string;
}

/** Input of `CommitStep.commit`. */
export interface CommitStepInput extends RunScope {
  step: number;
  /** The step's messages in conversation order: assistant message, then results by call index. */
  messages: Message[];
  /** Server tool outcomes whose onMessage/afterTool hooks fire after the commit, in call order. */
  toolOutcomes: ToolOutcome[];
  rejectedCalls: RejectedToolCall[];
  /** Return the committed custom state (only when the agent has a `stopWhen`). */
  returnState: boolean;
}

/** Output of `CommitStep.commit`. */
export interface CommitStepOutput {
  version: number;
  customState?: Record<string, unknown>;
}

/**
 * The step boundary: one atomic store transaction appends the step's messages (idempotent by id), promotes
 * the tools' staged state writes, writes checkpoint `${runId}:${step}` and bumps the version. Then fires
 * onMessage for every message and afterTool for every server tool, in call order.
 */
export class CommitStep {
  @DBOS.step({ name: 'CommitStep' })
  static async commit(input: CommitStepInput): Promise<CommitStepOutput> {
    const { dependencies, hooks, emitter } = await stepEnvironment(input, input.step);
    const { stateStore } = dependencies;
    const checkpointId = checkpointIdFor(input.runId, input.step);
    for (const rejected of input.rejectedCalls) {
      await emitter.emit({ type: 'tool_start', toolCallId: rejected.toolCallId, toolName: rejected.toolName, arguments: {} });
      await emitter.emit({ type: 'tool_end', toolCallId: rejected.toolCallId, toolName: rejected.toolName, error: rejected.error });
    }
    await emitter.flush();
    const { newVersion } = await stateStore.saveStateAndPromoteStaging(
      input.sessionId,
      { stepCount: input.step },
      input.messages,
      { checkpointId, runId: input.runId, stepCount: input.step },
    );

    const outcomes = new Map(input.toolOutcomes.map((outcome) => [outcome.resultMessageId, outcome]));
    for (const message of input.messages) {
      await hooks.fire('onMessage', { ...hookIdentity(input), message });
      const outcome = message.id === undefined ? undefined : outcomes.get(message.id);
      if (outcome !== undefined) {
        await hooks.fire('afterTool', {
          ...hookIdentity(input),
          toolCallId: outcome.toolCallId,
          toolName: outcome.toolName,
          input: outcome.input,
          ...(outcome.success ? { result: outcome.result } : { error: outcome.error }),
          durationMs: outcome.durationMs,
        });
      }
    }
    if (!input.returnState) return { version: newVersion };
    const state = await stateStore.loadState(input.sessionId);
    return { version: newVersion, customState: state?.customState ?? {} };
  }
}

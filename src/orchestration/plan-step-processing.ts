import { z } from 'zod';

import { FINISH_TOOL_NAME, type AgentTool, type AnyAgentConfig } from '../agent/index.js';
import type { StepDecisionResult } from './step-decision-result.js';
import type { ToolCall } from '../types/message.js';
import { buildEffectiveTools } from './build-effective-tools.js';
import { synthesizeFinishToolResult } from './finish-history.js';
import { ephemeralChildSessionId, messageId } from './ids.js';
import { createAssistantMessage, createToolResultMessage } from './message-builder.js';
import { plannedRemoteCall } from './remote-sub-agents.js';
import { describeIssueLocations, formatSchemaIssues } from './schema-issues.js';
import type { PlannedToolCall, PlannedToolError, StepPlanningContext, StepProcessingPlan, ToolErrorReason } from './step-plan-types.js';

const FINISH_REMINDER =
  `Your task is not complete until you call the ${FINISH_TOOL_NAME} tool with the final output. Call ${FINISH_TOOL_NAME} now.`;

/**
 * Split one LLM step's tool calls into what the loop must do, validating every call against its tool's
 * zod schema. Unknown tools, arguments the adapter could not parse (`stepResult.invalidToolCalls`), invalid
 * arguments and an invalid `__finish__` output become tool_error results
 * for the model with a payload-free message (an invalid output's also says where it failed validation, with each
 * issue's path and zod code, kept in `outputFailure` for the run's error if its steps run out); the first valid
 * `__finish__` becomes `finishCall`. Message ids are deterministic: the assistant message is `messageId(runId, step, 0)`, the result of the i-th call
 * `messageId(runId, step, i + 1)`. Pure and deterministic.
 *
 * @example
 * const plan = planStepProcessing(stepResult, agent, { sessionId, runId, step: 1 });
 * plan.serverToolCalls.map((call) => call.toolName);
 */
export function planStepProcessing(stepResult: StepDecisionResult, agent: AnyAgentConfig, context: StepPlanningContext): StepProcessingPlan {
  const tools = buildEffectiveTools(agent);
  const byName = new Map<string, AgentTool>(tools.map((tool) => [tool.name, tool]));
  const plan: StepProcessingPlan = {
    step: context.step,
    assistantMessage: createAssistantMessage(stepResult, { id: messageId(context.runId, context.step, 0) }),
    finishWithCalls: [],
    serverToolCalls: [],
    approvalCalls: [],
    clientToolCalls: [],
    subAgentCalls: [],
    remoteCalls: [],
    companionCalls: [],
    toolErrors: [],
    isTextResponse: stepResult.toolCalls.length === 0,
  };

  const unparsable = new Map((stepResult.invalidToolCalls ?? []).map((invalid) => [invalid.toolCallId, invalid.error]));

  stepResult.toolCalls.forEach((call, index) => {
    const resultMessageId = messageId(context.runId, context.step, index + 1);
    const fail = (reason: ToolErrorReason, error: string, outputFailure?: string): void => {
      plan.toolErrors.push({ ...toolError(call, index, resultMessageId, reason, error), ...(outputFailure === undefined ? {} : { outputFailure }) });
    };
    const tool = byName.get(call.name);
    if (tool === undefined) {
      fail('unknown_tool', unknownToolMessage(call.name, tools));
      return;
    }
    const adapterError = unparsable.get(call.id);
    if (adapterError !== undefined) {
      const finish = tool.kind === 'finish';
      fail(finish ? 'invalid_output' : 'invalid_arguments', `${adapterError} Call "${call.name}" again with a valid JSON object.`, finish ? 'Output was not a valid JSON object' : undefined);
      return;
    }
    const parsed = safeParse(tool.parameters, call.arguments);
    if (parsed === undefined) {
      fail('invalid_arguments', `The arguments of "${call.name}" could not be validated: its schema failed to run. Try another approach.`);
      return;
    }
    if (tool.kind === 'finish') {
      if (plan.finishCall !== undefined) {
        fail('duplicate_finish', `Ignored: ${FINISH_TOOL_NAME} was already called successfully in this step.`);
      } else if (!parsed.success) {
        const outputFailure = `Output failed validation at ${describeIssueLocations(parsed.error.issues)}`;
        fail(
          'invalid_output',
          `The ${FINISH_TOOL_NAME} output does not match the required schema. ${outputFailure}: ${formatSchemaIssues(parsed.error.issues)}. ` +
            `Call ${FINISH_TOOL_NAME} again with a corrected output.`,
          outputFailure,
        );
      } else {
        plan.finishCall = {
          toolCallId: call.id,
          index,
          output: parsed.data,
          resultMessage: synthesizeFinishToolResult(call.id, { id: resultMessageId }),
        };
      }
      return;
    }
    if (!parsed.success) {
      fail(
        'invalid_arguments',
        `Invalid arguments for tool "${call.name}": ${formatSchemaIssues(parsed.error.issues)}. ` +
          'Call the tool again with arguments that match its schema.',
      );
      return;
    }
    const planned: PlannedToolCall = {
      toolCallId: call.id,
      toolName: call.name,
      input: parsed.data as Record<string, unknown>,
      index,
      resultMessageId,
    };
    routeCall(plan, tool, planned, context);
  });

  if (plan.isTextResponse && agent.outputSchema !== undefined) {
    plan.finishReminder = {
      id: messageId(context.runId, context.step, 1),
      role: 'user',
      content: FINISH_REMINDER,
      metadata: { synthetic: true },
    };
  }
  return plan;
}

function routeCall(plan: StepProcessingPlan, tool: AgentTool, planned: PlannedToolCall, context: StepPlanningContext): void {
  switch (tool.kind) {
    case 'client':
      plan.clientToolCalls.push(planned);
      return;
    case 'subagent':
      plan.subAgentCalls.push({
        ...planned,
        agentType: tool.agentType,
        childSessionId: ephemeralChildSessionId(context.sessionId, planned.toolCallId),
        childMessage: JSON.stringify(planned.input),
      });
      return;
    case 'remote':
      plan.remoteCalls.push(plannedRemoteCall(planned, tool.agentType, context.sessionId));
      return;
    case 'companion':
      plan.companionCalls.push({ ...planned, action: tool.companionAction });
      return;
    case 'server':
      if (tool.requireApproval === true || typeof tool.requireApproval === 'function') {
        plan.approvalCalls.push({ ...planned, approval: tool.requireApproval === true ? 'always' : 'predicate' });
      } else if (tool.finishWith) {
        plan.finishWithCalls.push(planned);
      } else {
        plan.serverToolCalls.push(planned);
      }
      return;
    case 'finish':
      return;
  }
}

/** Run a schema without letting a throwing refinement or transform crash the plan. */
function safeParse(schema: z.ZodType, value: unknown): ReturnType<typeof z.safeParse> | undefined {
  try {
    return z.safeParse(schema, value);
  } catch {
    return undefined;
  }
}

function toolError(
  call: ToolCall,
  index: number,
  resultMessageId: string,
  reason: ToolErrorReason,
  error: string,
): PlannedToolError {
  return {
    toolCallId: call.id,
    toolName: call.name,
    index,
    reason,
    error,
    resultMessage: createToolResultMessage({ id: resultMessageId, toolCallId: call.id, toolName: call.name, error }),
  };
}

function unknownToolMessage(name: string, tools: readonly AgentTool[]): string {
  const shown = name.length > 64 ? `${name.slice(0, 64)}…` : name;
  if (tools.length === 0) return `Unknown tool "${shown}". This agent has no tools; answer in text instead.`;
  return `Unknown tool "${shown}". Available tools: ${tools.map((tool) => tool.name).join(', ')}. Call one of these instead.`;
}

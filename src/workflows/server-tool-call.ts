import { isTransactionalTool } from '../agent/index.js';
import { findEffectiveTool } from '../orchestration/index.js';
import type { ToolOutcome } from '../orchestration/tool-outcome.js';
import { ExecuteToolStep, type ExecuteToolStepInput } from '../steps/execute-tool.step.js';
import { peekRegisteredAgent } from '../steps/runtime-registry.js';
import { TransactionalToolStep } from '../steps/transactional-tool.step.js';

/**
 * Run one server tool call from a workflow body: a transactional tool (`defineTransactionalTool`) as a DBOS
 * transaction on the app database, any other as an `ExecuteToolStep`. Decided synchronously from the agent the
 * workflow already resolved, so the call takes its durable function id in call order.
 *
 * @example
 * const outcomes = await Promise.all(calls.map((call) => executeServerTool({ ...scope, step, call, phase: 1 })));
 */
export function executeServerTool(input: ExecuteToolStepInput): Promise<ToolOutcome> {
  const agent = peekRegisteredAgent(input.agentType);
  const tool = agent === undefined ? undefined : findEffectiveTool(agent, input.call.toolName);
  return isTransactionalTool(tool) ? TransactionalToolStep.execute(input) : ExecuteToolStep.execute(input);
}
